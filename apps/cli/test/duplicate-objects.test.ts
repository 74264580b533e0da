import { dirname } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from './support/cli.js';
import { writeManifests } from './support/manifests.js';

const pool = (name: string, cpu: string) => `apiVersion: karpenter.sh/v1
kind: NodePool
metadata: { name: ${name} }
spec:
  limits: { cpu: "${cpu}" }
  template:
    spec:
      nodeClassRef: { group: karpenter.sim, kind: SimNodeClass, name: default }
      requirements:
        - { key: karpenter.sh/capacity-type, operator: In, values: [on-demand] }
`;
const pod = (name: string, namespace?: string) => `apiVersion: v1
kind: Pod
metadata: { name: ${name}${namespace ? `, namespace: ${namespace}` : ''} }
spec:
  containers: [{ name: c, image: nginx, resources: { requests: { cpu: 100m } } }]
`;
const REPLACED = 'kubectl apply keeps one object, the later definition replacing the earlier';

describe('objects defined twice (same kind, namespace and name)', () => {
  it('validate reports the later definition, naming where the earlier one is', async () => {
    const file = await writeManifests(pool('same', '10'), pool('same', '20'));
    const { code, stdout } = await cli('validate', file);
    expect(code).toBe(1);
    expect(stdout.split('\n')).toEqual([
      `${file}:2 metadata.name: NodePool "same" is also defined at ${file}:1: ${REPLACED}`,
      '✗ 1 problem in 1 document (2 objects checked in 1 file)',
      '',
    ]);
  });

  it('finds pods defined twice in one namespace across files, the default namespace included', async () => {
    const first = await writeManifests(pod('p'));
    const second = await writeManifests(pod('other'), pod('p', 'default'));
    const { code, stdout } = await cli('validate', first, second);
    expect(code).toBe(1);
    expect(stdout.split('\n')[0]).toBe(
      `${second}:2 metadata.name: Pod "default/p" is also defined at ${first}:1: ${REPLACED}`,
    );
  });

  it('accepts the same name in another namespace or of another kind', async () => {
    const file = await writeManifests(
      pod('p'),
      pod('p', 'shop'),
      pool('p', '10'),
      'apiVersion: v1\nkind: Service\nmetadata: { name: p }\n',
    );
    const { code, stdout } = await cli('validate', file);
    expect(stdout).toBe(
      '✓ 3 objects valid (2 Pod, 1 NodePool) in 1 file; 1 other object skipped\n',
    );
    expect(code).toBe(0);
  });

  it('reads a file named twice (itself, or its folder too) once: its objects are not duplicates of themselves', async () => {
    const file = await writeManifests(pool('once', '10'));
    const twice = await cli('validate', file, file);
    expect(twice.code).toBe(0);
    expect(twice.stdout).toContain('1 object valid');
    const withFolder = await cli('validate', file, dirname(file));
    expect(withFolder.code).toBe(0);
    expect(withFolder.stdout).toContain('1 object valid');
  });

  it('simulate stops instead of simulating both NodePools', async () => {
    const file = await writeManifests(pool('same', '10'), pool('same', '20'), pod('p'));
    const { code, stdout, stderr } = await cli('simulate', file, '--cloud', 'sim');
    expect(stdout).toBe('');
    expect(code).toBe(1);
    expect(stderr).toBe(
      `karpenter-ts: error: ${file}:2 metadata.name: NodePool "same" is also defined at ${file}:1: ${REPLACED}\n`,
    );
  });
});
