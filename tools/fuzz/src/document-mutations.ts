/**
 * Mutations of parsed documents: a value set to a wrong one or to raw YAML, a field deleted, a
 * key added. Paths are chosen by index among every path of the unmutated document, so a
 * mutation is plain data (printable, replayable) and shrinks well.
 */
import fc from 'fast-check';
import { stringify } from 'yaml';
import { rawYaml, wrongValue } from './values.js';

/** One mutation of document `document` at the `path`-th path (modulo the path count). */
export type DocumentMutation =
  | { op: 'set'; document: number; path: number; value: unknown }
  | { op: 'raw'; document: number; path: number; raw: string }
  | { op: 'delete'; document: number; path: number }
  | { op: 'add'; document: number; path: number; key: string; value: unknown };

type Path = ReadonlyArray<string | number>;

/** Every path to a value inside `value` (mappings and lists), the root excluded. */
export function valuePaths(value: unknown, at: Path = []): Path[] {
  const out: Path[] = [];
  if (Array.isArray(value))
    value.forEach((v, i) => out.push([...at, i], ...valuePaths(v, [...at, i])));
  else if (typeof value === 'object' && value !== null)
    for (const [k, v] of Object.entries(value)) out.push([...at, k], ...valuePaths(v, [...at, k]));
  return out;
}

/** Keys an `add` mutation puts into a mapping: unknown fields, fields of other kinds, a merge key. */
const ADDED_KEYS = [
  'extra',
  'requests',
  'replicas',
  'spec',
  'status',
  'items',
  'metadata',
  'nodeName',
  'resources',
  '<<',
];

/** Mutations of one of `documentCount` documents. */
export function documentMutation(documentCount: number): fc.Arbitrary<DocumentMutation> {
  return fc.tuple(fc.nat(documentCount - 1), fc.nat(100_000)).chain(([document, path]) =>
    fc.oneof(
      wrongValue.map((value) => ({ op: 'set' as const, document, path, value })),
      rawYaml.map((raw) => ({ op: 'raw' as const, document, path, raw })),
      fc.constant({ op: 'delete' as const, document, path }),
      fc
        .tuple(fc.constantFrom(...ADDED_KEYS), wrongValue)
        .map(([key, value]) => ({ op: 'add' as const, document, path, key, value })),
    ),
  );
}

/** Stands in the YAML for a raw snippet, replaced after stringifying. */
const MARK = 'FUZZ-RAW-MARK';

/**
 * `documents` with `mutations` applied, as multi-document YAML text (`---` between documents).
 * A mutation whose path an earlier one removed is skipped. The documents are not changed.
 */
export function mutatedYaml(
  documents: readonly unknown[],
  mutations: readonly DocumentMutation[],
): string {
  const docs: unknown[] = structuredClone(documents) as unknown[];
  const pathsOf = documents.map((doc) => valuePaths(doc));
  const raws: string[] = [];
  for (const m of mutations) {
    const candidates = pathsOf[m.document % docs.length]!;
    if (candidates.length === 0) continue;
    const path = candidates[m.path % candidates.length]!;
    const parent = path
      .slice(0, -1)
      .reduce<unknown>(
        (node, key) => (node as Record<string | number, unknown> | undefined)?.[key],
        docs[m.document % docs.length],
      ) as Record<string | number, unknown> | undefined;
    if (typeof parent !== 'object' || parent === null) continue;
    const key = path[path.length - 1]!;
    if (m.op === 'set') parent[key] = m.value;
    else if (m.op === 'delete') {
      if (Array.isArray(parent)) parent.splice(Number(key), 1);
      else delete parent[key];
    } else if (m.op === 'raw') {
      parent[key] = `${MARK}-${raws.length}`;
      raws.push(m.raw);
    } else {
      const target = parent[key];
      if (typeof target === 'object' && target !== null && !Array.isArray(target))
        (target as Record<string, unknown>)[m.key] = m.value;
    }
  }
  let text = docs.map((doc) => stringify(doc, { lineWidth: 0 })).join('---\n');
  raws.forEach((raw, i) => {
    text = text.replace(`${MARK}-${i}`, () => raw);
  });
  return text;
}
