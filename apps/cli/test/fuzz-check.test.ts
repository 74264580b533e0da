/**
 * The fuzz checker's own rules (support/fuzz-check.ts): what it takes as the program doing the
 * right thing, and what stays a finding.
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { cli } from './support/cli.js';
import { checkInput, warnedOf } from './support/fuzz-check.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'karpenter-ts-fuzz-check-'));
});

async function file(name: string, text: string): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, text);
  return path;
}

const report = `apiVersion: batch/v1
kind: Job
metadata: {name: report}
spec:
  template:
    spec:
      restartPolicy: Never
      containers: [{name: c, image: busybox, resources: {requests: {cpu: 100m}}}]
`;

describe('the fuzz checker', () => {
  it('takes an explain --pod that names no workload of the input as an error about the run, not a line of the file (fuzz seed 20261202, input 2703)', async () => {
    const path = await file('renamed-workload.yaml', report);
    const explain = await cli('explain', path, '--pod', 'web', '--cloud', 'sim');
    expect(explain.stderr).toBe(
      'karpenter-ts: error: --pod: no pending pod or workload named "web" (workloads: report)\n',
    );
    const family = {
      name: 'explain',
      documents: [],
      commands: [['explain', '--pod', 'web', '--cloud', 'sim']],
    };
    expect(await checkInput(path, family)).toEqual([]);
  });

  it('accepts simulate refusing a snapshot on a problem validate warned of (fuzz seed 20261202, input 2630)', async () => {
    const snapshot = readFileSync(
      fileURLToPath(new URL('../../../examples/snapshots/sim-cluster.yaml', import.meta.url)),
      'utf8',
    );
    const path = await file(
      'nodeclaim-not-launched.yaml',
      snapshot.replace('providerID: kwok://default-7xk2p', 'providerID: true'),
    );
    const family = { name: 'snapshot', documents: [], commands: [['simulate', '--cloud', 'sim']] };
    expect(await checkInput(path, family)).toEqual([]);
  });

  describe('a simulate refusal counts as warned of only when validate printed it as a warning', () => {
    const reason = 'in.yaml:8 status.providerID: NodeClaim a is not launched yet';
    it.each([
      [
        'the warning of it',
        'in.yaml:8 status.providerID: warning: they refuse it: NodeClaim a is not launched yet',
        true,
      ],
      [
        'the same line as a problem, not a warning',
        'in.yaml:8 status.providerID: NodeClaim a is not launched yet',
        false,
      ],
      [
        'a warning on another document',
        'in.yaml:9 status.providerID: warning: they refuse it: NodeClaim a is not launched yet',
        false,
      ],
      [
        'a warning on another field',
        'in.yaml:8 status.nodeName: warning: they refuse it: NodeClaim a is not launched yet',
        false,
      ],
      [
        'a warning of another problem',
        'in.yaml:8 status.providerID: warning: they refuse it: NodeClaim b is not launched yet',
        false,
      ],
    ])('%s', (_what, line, warned) => {
      expect(
        warnedOf(`${line}\n✓ 14 objects valid in 1 file; 1 warning\n`, 'in.yaml', reason),
      ).toBe(warned);
    });
  });
});
