/**
 * Property: whatever a file of valid NodePools, NodeClaims and NodeOverlays is mutated into
 * (@karpenter-ts/fuzz: wrong types, null, huge and negative numbers, malformed quantities, long
 * and unicode strings, deleted and unknown fields, aliases and alias bombs, merge tags, deep
 * nesting; duplicated key lines, hostile lines, binary bytes, truncation, thousands of
 * documents), reading it never throws: `parseManifests` reports YAML problems as violations
 * with a document and a line, `validate` and the runtime validations report every object's
 * problems as violations naming a rule and a message, and `validateYaml` gives each a line in
 * the file. Seeded, so every run tries the same inputs.
 */
import fc from 'fast-check';
import { describeInput, manifestInput, mutatedYaml } from '@karpenter-ts/fuzz';
import { describe, expect, it } from 'vitest';
import {
  parseManifests,
  validate,
  validateNodeOverlayRuntime,
  validateNodePoolRuntime,
  validateYaml,
  type NodeOverlay,
  type NodePool,
  type Violation,
} from '../src/index.js';
import { nodeClaim, nodeOverlay, nodePool } from './builders.js';

const pool = nodePool('general');
pool.spec.limits = { cpu: '1000', memory: '1000Gi' };
pool.spec.disruption = {
  consolidationPolicy: 'WhenEmptyOrUnderutilized',
  consolidateAfter: '30s',
  budgets: [
    { nodes: '10%', reasons: ['Empty'] },
    { nodes: '0', schedule: '@daily', duration: '1h' },
  ],
};
pool.spec.template.spec.taints = [{ key: 'example.com/team', value: 'web', effect: 'NoSchedule' }];
pool.spec.template.spec.expireAfter = '720h';
const overlay = nodeOverlay();
overlay.spec.priceAdjustment = '-10%';
overlay.spec.capacity = { 'example.com/device': '2' };

const DOCUMENTS = [pool, nodeClaim(), overlay];

/** A violation as readers print it: a rule and a message (`file:line path: message`). */
function wellFormed(v: Violation): boolean {
  return typeof v.rule === 'string' && typeof v.message === 'string' && v.message !== '';
}

describe('reading mutated NodePools, NodeClaims and NodeOverlays', () => {
  it('the unmutated file is valid', () => {
    expect(validateYaml(mutatedYaml(DOCUMENTS, []))).toEqual([]);
  });

  it('never throws, and every problem is a violation with a line', () => {
    fc.assert(
      fc.property(manifestInput(DOCUMENTS, { copies: { min: 20, max: 100 } }), (input) => {
        const text = input.bytes.toString('utf8');
        const why = describeInput(input);
        const parsed = parseManifests(text, { fileName: 'in.yaml' });
        for (const v of parsed.violations) {
          expect(wellFormed(v), why).toBe(true);
          expect(v.line, why).toBeGreaterThan(0);
        }
        for (const { object } of parsed.manifests) {
          const violations = validate(object);
          expect(violations.every(wellFormed), why).toBe(true);
          // The runtime checks run on what the schema admits, as the controller reads it.
          const kind = (object as { kind?: unknown }).kind;
          if (violations.length > 0) continue;
          if (kind === 'NodePool')
            expect(validateNodePoolRuntime(object as NodePool).every(wellFormed), why).toBe(true);
          if (kind === 'NodeOverlay')
            expect(validateNodeOverlayRuntime(object as NodeOverlay).every(wellFormed), why).toBe(
              true,
            );
        }
        for (const v of validateYaml(text, { fileName: 'in.yaml' }))
          expect(v.line, why).toBeGreaterThan(0);
      }),
      { seed: 1716, numRuns: 200 },
    );
  }, 120_000); // 200 inputs, some of a hundred copies: over the default per-test timeout

  it('reads 300 documents, each referring to one anchor 1,200 times, with a violation each', () => {
    // Found by the CLI fuzz suite: the yaml library composed every alias of every document
    // before any was refused; 3,000 such documents took minutes and over 4 GB.
    const aliases = Array.from({ length: 1200 }, () => '*z').join(', ');
    const text = Array.from({ length: 300 }, () => `kind: A\nvalues: [&z 1, ${aliases}]\n`).join(
      '---\n',
    );
    const { manifests, violations } = parseManifests(text);
    expect(manifests).toEqual([]);
    expect(violations).toHaveLength(300);
    expect(new Set(violations.map((v) => v.rule))).toEqual(new Set(['yaml-syntax']));
  });
});
