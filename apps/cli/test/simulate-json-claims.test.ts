/**
 * `simulate -o json` tells a reader everything it decided about a node claim, without
 * subtraction (issue 15, item 12): the NodeClaim's requirements, labels and annotations (such
 * as min-values-relaxed) and the daemonset overhead in its requests; `existingNodes` lists every
 * Node of the input, those that received no pod too.
 */
import { describe, expect, it } from 'vitest';
import { cli } from './support/cli.js';
import {
  list,
  machine,
  nodePool,
  pods,
  simNodeClass,
  unmanagedNode,
  writeSnapshot,
} from './support/snapshot.js';

interface Report {
  nodeClaims: {
    name: string;
    nodePool: string;
    requirements: { key: string; operator: string; values?: string[]; minValues?: number }[];
    labels: Record<string, string>;
    annotations: Record<string, string>;
    daemonSetOverhead: Record<string, string>;
    requests: Record<string, string>;
  }[];
  existingNodes: { name: string; nodePool?: string; pods: string[]; podsBefore: number }[];
}

const agent = {
  apiVersion: 'apps/v1',
  kind: 'DaemonSet',
  metadata: { name: 'agent', namespace: 'kube-system' },
  spec: {
    selector: { matchLabels: { app: 'agent' } },
    template: {
      metadata: { labels: { app: 'agent' } },
      spec: {
        containers: [
          { name: 'a', image: 'a', resources: { requests: { cpu: '250m', memory: '128Mi' } } },
        ],
      },
    },
  },
};

describe('simulate -o json', () => {
  it("prints each node claim's requirements, labels, annotations and daemonset overhead, and every existing Node", async () => {
    const pool = nodePool({
      labels: { team: 'web' },
      requirements: [
        { key: 'kubernetes.io/os', operator: 'In', values: ['linux'] },
        { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand'] },
        { key: 'karpenter.kwok.sh/instance-family', operator: 'Exists', minValues: 5 },
      ],
    });
    const file = await writeSnapshot(
      list(
        simNodeClass(),
        pool,
        agent,
        machine('full', 'c-1x-amd64-linux'),
        pods('web', 'full', 1, { cpu: '500m' }),
        unmanagedNode('system', '1', '1Gi'),
        pods('big', undefined, 1, { cpu: '3', memory: '1Gi' }),
      ),
    );
    const { code, stdout, stderr } = await cli(
      'simulate',
      file,
      '--cloud',
      'sim',
      '-o',
      'json',
      '--min-values-policy',
      'BestEffort',
    );
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const report = JSON.parse(stdout) as Report;
    expect(report.nodeClaims).toHaveLength(1);
    const [claim] = report.nodeClaims;
    expect(claim!.name).toMatch(/^default-/);
    expect(claim!.daemonSetOverhead).toEqual({ cpu: '250m', memory: '128Mi', pods: '1' });
    expect(claim!.requests).toEqual({ cpu: '3250m', memory: '1152Mi', pods: '2' });
    expect(claim!.labels).toMatchObject({ team: 'web', 'karpenter.sh/nodepool': 'default' });
    expect(claim!.annotations).toMatchObject({
      'karpenter.sh/nodeclaim-min-values-relaxed': 'true',
    });
    expect(claim!.annotations['karpenter.sh/nodepool-hash']).toMatch(/^\d+$/);
    const keys = claim!.requirements.map((r) => r.key);
    expect(keys).toEqual(
      expect.arrayContaining([
        'kubernetes.io/os',
        'karpenter.sh/capacity-type',
        'karpenter.kwok.sh/instance-family',
        'node.kubernetes.io/instance-type',
      ]),
    );
    expect(keys).not.toContain('kubernetes.io/hostname');
    expect(report.existingNodes).toEqual([
      { name: 'full', nodePool: 'default', pods: [], podsBefore: 1 },
      { name: 'system', pods: [], podsBefore: 0 },
    ]);
  });

  it('a node claim without DaemonSets has an empty daemonset overhead', async () => {
    const file = await writeSnapshot(
      list(simNodeClass(), nodePool(), pods('big', undefined, 1, { cpu: '1' })),
    );
    const { stdout } = await cli('simulate', file, '--cloud', 'sim', '-o', 'json');
    const report = JSON.parse(stdout) as Report;
    expect(report.nodeClaims.map((c) => c.daemonSetOverhead)).toEqual([{}]);
    expect(report.nodeClaims[0]!.annotations).not.toHaveProperty(
      'karpenter.sh/nodeclaim-min-values-relaxed',
    );
  });
});
