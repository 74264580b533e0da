/**
 * The example manifests in examples/: the valid ones validate cleanly (schema, CEL and runtime
 * checks), the broken ones fail the way their comments say.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import {
  applyDefaults,
  parseManifests,
  validateNodePoolRuntime,
  validateYaml,
} from '../src/index.js';
import type { NodePool } from '../src/index.js';

const root = fileURLToPath(new URL('../../../examples/', import.meta.url));
const files = (dir: string): string[] =>
  readdirSync(`${root}${dir}`).filter((f) => f.endsWith('.yaml'));
const read = (dir: string, f: string): string => readFileSync(`${root}${dir}/${f}`, 'utf8');

describe('examples/nodepools', () => {
  test('there are at least four', () => {
    expect(files('nodepools').length).toBeGreaterThanOrEqual(4);
  });

  test.each(files('nodepools'))('%s validates with no violations', (f) => {
    expect(validateYaml(read('nodepools', f), { fileName: f })).toEqual([]);
    for (const m of parseManifests(read('nodepools', f)).manifests) {
      expect(validateNodePoolRuntime(applyDefaults(m.object as NodePool))).toEqual([]);
    }
  });
});

describe('examples/invalid', () => {
  const expected: Record<string, string[]> = {
    'v1beta1-fields.yaml': ['deprecated-field', 'required', 'enum'],
    'bad-requirements.yaml': ['enum', 'self != "kubernetes.io/hostname"'],
    'bad-disruption-and-limits.yaml': [
      'pattern',
      'minimum',
      'self.all(x, has(x.schedule) == has(x.duration))',
    ],
    'malformed.yaml': ['duplicate-key', 'yaml-syntax'],
  };
  test.each(files('invalid'))('%s has the violations it was written to show', (f) => {
    const rules = validateYaml(read('invalid', f), { fileName: f }).map((v) => v.rule);
    expect(rules.length).toBeGreaterThan(0);
    for (const r of expected[f] ?? []) expect(rules).toContain(r);
  });
});
