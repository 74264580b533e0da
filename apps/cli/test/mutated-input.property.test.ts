/**
 * Property: whatever valid NodePools, NodeClasses (AKSNodeClass, EC2NodeClass), NodeOverlays,
 * workloads and a cluster snapshot are mutated into (wrong types, null, huge and negative
 * numbers, malformed quantities, long and unicode strings, deleted and unknown fields, aliases
 * and alias bombs, merge tags, deep nesting; then duplicated key lines, hostile lines, binary
 * bytes, a truncated file, or thousands of documents), `validate` and the commands that read
 * such a file end in exit 0 or exit 1, and exit 1 says why in `file:line` lines naming the
 * field; never an internal error or a stack trace, within time and memory bounds, and
 * `simulate` never crashes on an input `validate` accepts (support/fuzz-check.ts). Seeded, so
 * every run tries the same inputs; `npm run fuzz -- --runs N` runs more (up to 3,000 copies).
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describeInput, manifestInput, mutatedYaml } from '@karpenter-ts/fuzz';
import { beforeAll, describe, expect, it } from 'vitest';
import { checkInput } from './support/fuzz-check.js';
import { FUZZ_FAMILIES } from './support/fuzz-families.js';

/** Inputs per family in `npm test`. */
const RUNS = 70;
/** Fewer copies than the long run's thousands of documents, to keep `npm test` cheap. */
const COPIES = { min: 20, max: 100 };

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'karpenter-ts-fuzz-'));
});

describe.each(FUZZ_FAMILIES.map((family, i) => ({ family, seed: 1716 + i })))(
  'the $family.name family',
  ({ family, seed }) => {
    it('unmutated, it is valid and every command reads it', async () => {
      const file = join(dir, `${family.name}-valid.yaml`);
      await writeFile(file, mutatedYaml(family.documents, []));
      expect(await checkInput(file, family)).toEqual([]);
      const { cli } = await import('./support/cli.js');
      expect(await cli('validate', file)).toMatchObject({ code: 0, stderr: '' });
    });

    it('mutated, every input ends in exit 0 or exit 1 with file:line lines', async () => {
      let n = 0;
      await fc.assert(
        fc.asyncProperty(manifestInput(family.documents, { copies: COPIES }), async (input) => {
          const file = join(dir, `${family.name}-${n++}.yaml`);
          await writeFile(file, input.bytes);
          const findings = await checkInput(file, family);
          expect(findings, describeInput(input)).toEqual([]);
        }),
        { seed, numRuns: RUNS },
      );
    }, 300_000); // RUNS inputs of up to four commands each: over the default per-test timeout
  },
);
