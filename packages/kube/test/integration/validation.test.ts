/**
 * The API server and @karpenter-ts/api's offline `validate` must agree: every example NodePool
 * is accepted by both, and every broken one is rejected by both for the same fields and rules.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { parseManifests, validate, type Violation } from '@karpenter-ts/api';
import { parse } from 'yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import { apiStatusOf, type ApiStatus, type StatusCause } from '../../src/index.js';
import { clusterConnection, installAllCrds, repoRoot } from './cluster.js';

const connection = clusterConnection();
const nodePools = '/apis/karpenter.sh/v1/nodepools';

function readExample(path: string): Record<string, unknown> {
  return parse(readFileSync(`${repoRoot}${path}`, 'utf8')) as Record<string, unknown>;
}

/** The server's answer to creating `object`: its Status when rejected, undefined when stored. */
async function create(
  object: unknown,
  fieldValidation: 'Strict' | 'Ignore',
): Promise<ApiStatus | undefined> {
  try {
    await connection.request('POST', nodePools, {
      body: object,
      query: { fieldValidation, dryRun: 'All' },
    });
    return undefined;
  } catch (err) {
    const status = apiStatusOf(err);
    if (status === undefined) throw err;
    return status;
  }
}

/** Server causes about fields ("<nil>" is the server's "some rules were not checked" note). */
function fieldCauses(status: ApiStatus): StatusCause[] {
  return (status.details?.causes ?? []).filter((c) => c.field !== undefined && c.field !== '<nil>');
}

/** The server left CEL rules unchecked because the object failed its schema first. */
function celSkipped(status: ApiStatus): boolean {
  return (status.details?.causes ?? []).some((c) =>
    /some validation rules were not checked/.test(c.message ?? ''),
  );
}

const OPENAPI_KEYWORDS: Record<string, RegExp> = {
  pattern: /should match '/,
  minimum: /should be greater than or equal to/,
  maximum: /should be less than or equal to/,
  enum: /^Unsupported value:/,
  required: /^Required value/,
  maxItems: /must have at most/,
  minItems: /should have at least/,
  maxLength: /may not be (longer|more) than/,
  type: /in body must be of type/,
};

/**
 * Whether a server cause reports the same problem as an offline violation: the same field
 * (a CEL rule on a list or map is reported by the server on the list, offline on the entry),
 * and the same rule (an OpenAPI keyword named by the server's wording, or the CEL rule's message).
 */
function same(cause: StatusCause, v: Violation): boolean {
  const field = cause.field ?? '';
  const fieldMatches =
    v.path === field || v.path.startsWith(`${field}[`) || v.path.startsWith(`${field}.`);
  if (!fieldMatches) return false;
  const keyword = OPENAPI_KEYWORDS[v.rule];
  if (keyword !== undefined) return keyword.test(cause.message ?? '');
  // A CEL rule: the server prints the rule's message.
  const message = v.message.replace(/ \(rule could not be evaluated: .*\)$/, '');
  return (cause.message ?? '').includes(message);
}

/** Asserts both sides report exactly the same problems (CEL ones only when the server ran them). */
function expectAgreement(status: ApiStatus, offline: Violation[]): void {
  const rejected = offline.filter((v) => v.apiServer === 'reject');
  const causes = fieldCauses(status);
  for (const cause of causes) {
    expect(
      rejected.some((v) => same(cause, v)),
      `server cause ${JSON.stringify(cause)} has no offline counterpart in ${JSON.stringify(rejected, null, 1)}`,
    ).toBe(true);
  }
  const skipped = celSkipped(status);
  for (const v of rejected) {
    if (skipped && !(v.rule in OPENAPI_KEYWORDS)) continue;
    expect(
      causes.some((c) => same(c, v)),
      `offline ${v.path} (${v.rule}) not reported by the server: ${JSON.stringify(causes, null, 1)}`,
    ).toBe(true);
  }
}

describe('NodePool examples against the real API server and offline validation', () => {
  beforeAll(async () => {
    await installAllCrds(connection);
  });

  const valid = readdirSync(`${repoRoot}examples/nodepools`).filter((f) => f.endsWith('.yaml'));
  it.each(valid)('accepts examples/nodepools/%s, as validate does', async (file) => {
    const pool = readExample(`examples/nodepools/${file}`);
    expect(validate(pool)).toEqual([]);
    expect(await create(pool, 'Strict')).toBeUndefined();
  });

  it('rejects examples/invalid/bad-disruption-and-limits.yaml for the same fields and rules as validate', async () => {
    const pool = readExample('examples/invalid/bad-disruption-and-limits.yaml');
    const status = await create(pool, 'Strict');
    expect(status?.code).toBe(422);
    expect(celSkipped(status!)).toBe(false);
    expectAgreement(status!, validate(pool));
    expect(fieldCauses(status!)).toHaveLength(6);
  });

  it('rejects examples/invalid/bad-requirements.yaml: the schema error first, then, once fixed, every CEL rule validate reports', async () => {
    const pool = readExample('examples/invalid/bad-requirements.yaml');
    const status = await create(pool, 'Strict');
    expect(status?.code).toBe(422);
    // The server checks CEL rules only on objects that pass the schema.
    expect(celSkipped(status!)).toBe(true);
    expectAgreement(status!, validate(pool));

    const fixed = structuredClone(pool) as {
      spec: { template: { spec: { requirements: { operator: string }[] } } };
    };
    const bad = fixed.spec.template.spec.requirements.find((r) => r.operator === 'Equals');
    expect(bad).toBeDefined();
    bad!.operator = 'In';
    const offline = validate(fixed);
    expect(offline.length).toBeGreaterThan(0);
    const second = await create(fixed, 'Strict');
    expect(second?.code).toBe(422);
    expect(celSkipped(second!)).toBe(false);
    expectAgreement(second!, offline);
  });

  it('rejects examples/invalid/v1beta1-fields.yaml: strict field validation names the unknown fields validate flags as pruned', async () => {
    const pool = readExample('examples/invalid/v1beta1-fields.yaml');
    const offline = validate(pool);
    const strict = await create(pool, 'Strict');
    expect(strict?.code).toBe(400);
    const unknown = [...(strict?.message ?? '').matchAll(/unknown field "([^"]+)"/g)]
      .map((m) => m[1])
      .sort();
    expect(unknown).toEqual(
      offline
        .filter((v) => v.apiServer === 'prune')
        .map((v) => v.path)
        .sort(),
    );

    // Without strict validation the server drops those fields and still rejects the rest.
    const lenient = await create(pool, 'Ignore');
    expect(lenient?.code).toBe(422);
    expectAgreement(lenient!, offline);
  });

  it('rejects examples/invalid/malformed.yaml as sent (HTTP 400), which validate reports as a YAML error', async () => {
    const text = readFileSync(`${repoRoot}examples/invalid/malformed.yaml`, 'utf8');
    const offline = parseManifests(text).violations;
    expect(offline.map((v) => v.rule)).toContain('duplicate-key');
    const status = await connection
      .request('POST', nodePools, {
        rawBody: text,
        contentType: 'application/yaml',
        query: { fieldValidation: 'Strict' },
      })
      .then(
        () => undefined,
        (err: unknown) => apiStatusOf(err),
      );
    expect(status?.code).toBe(400);
  });

  it('stored none of the rejected NodePools', async () => {
    const list = await connection.request<{ items: { metadata: { name: string } }[] }>(
      'GET',
      nodePools,
    );
    const names = list.items.map((p) => p.metadata.name);
    for (const rejected of [
      'bad-disruption',
      'bad-requirements',
      'legacy',
      'malformed',
      'malformed-again',
    ]) {
      expect(names).not.toContain(rejected);
    }
  });
});
