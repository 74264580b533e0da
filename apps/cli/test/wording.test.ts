/**
 * Messages read as English (issue 15, item 13): counted nouns agree with their number, one
 * message uses one unit per resource, an explain line names its NodePool once, daemonset
 * overhead is named only when a DaemonSet adds some, and `compare --help` shows its default as
 * the flag is written.
 */
import { describe, expect, it } from 'vitest';
import { formatAmounts } from '../src/explain/why.js';
import { cli } from './support/cli.js';
import { writeManifests } from './support/manifests.js';

const pool = (types: string[]) => `apiVersion: karpenter.sh/v1
kind: NodePool
metadata: { name: only }
spec:
  template:
    spec:
      nodeClassRef: { group: karpenter.sim, kind: SimNodeClass, name: default }
      requirements:
        - { key: node.kubernetes.io/instance-type, operator: In, values: [${types.join(', ')}] }
`;
const pod = (cpu: string) => `apiVersion: v1
kind: Pod
metadata: { name: api, namespace: default }
spec:
  containers: [{ name: app, image: app, resources: { requests: { cpu: "${cpu}" } } }]
`;
const daemonSet = `apiVersion: apps/v1
kind: DaemonSet
metadata: { name: agent, namespace: kube-system }
spec:
  selector: { matchLabels: { app: agent } }
  template:
    metadata: { labels: { app: agent } }
    spec:
      containers: [{ name: agent, image: agent, resources: { requests: { cpu: 500m } } }]
`;

describe('wording', () => {
  it('one instance type and one pod are singular', async () => {
    const file = await writeManifests(pool(['c-2x-amd64-linux']), pod('1'));
    const { code, stdout } = await cli('explain', file, '--pod', 'api', '--cloud', 'sim');
    expect(code).toBe(0);
    expect(stdout).toContain('1 instance type fits');
    expect(stdout).toContain('c-2x-amd64-linux, 1 pod)');
    expect(stdout).not.toMatch(/\b1 (instance types|pods)\b/);
  });

  it('an explain line names its NodePool once', async () => {
    // The pod fits the type alone, not with the DaemonSet: the scheduler's own reason is shown.
    const file = await writeManifests(pool(['c-1x-amd64-linux']), pod('800m'), daemonSet);
    const { code, stdout } = await cli('explain', file, '--pod', 'api', '--cloud', 'sim');
    expect(code).toBe(0);
    const line = stdout.split('\n').find((l) => l.startsWith('NodePool "only"'));
    expect(line).toContain('plus daemonset overhead');
    expect(line?.match(/"only"/g)).toHaveLength(1);
  });

  it('daemonset overhead is named only when a DaemonSet adds it', async () => {
    const file = await writeManifests(pool(['c-1x-amd64-linux']), pod('3'));
    const { code, stdout } = await cli('simulate', file, '--cloud', 'sim', '-o', 'json');
    expect(code).toBe(0);
    const { podErrors } = JSON.parse(stdout) as { podErrors: { reason: string }[] };
    expect(podErrors[0]?.reason).toContain('no instance type has enough resources');
    expect(podErrors[0]?.reason).not.toContain('daemonset overhead');
  });

  it('amounts read side by side share one unit', () => {
    expect(formatAmounts('memory', [14_162_132_582, 13_800 * 2 ** 20])).toEqual([
      '13.19Gi',
      '13.48Gi',
    ]);
    expect(formatAmounts('memory', [64 * 2 ** 20, 128 * 2 ** 20])).toEqual(['64Mi', '128Mi']);
    expect(formatAmounts('cpu', [1900, 3000])).toEqual(['1900m', '3']);
  });

  it('compare --help shows the default clouds as the flag takes them', async () => {
    const { stdout } = await cli('compare', '--help');
    expect(stdout.replace(/\s+/g, ' ')).toContain('(default: azure:eastus,aws:us-east-1)');
    expect(stdout).not.toContain('{"cloud"');
  });
});
