/**
 * How `disrupt` reads a cluster snapshot: workloads whose pods are present are not expanded
 * again, the cloud comes from the snapshot, what is ignored is said, and bad input is one line
 * per problem naming the object and the file, with nothing run (exit 1).
 */
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { cli } from './support/cli.js';
import {
  EARLIER,
  list,
  machine,
  nodePool,
  NOW,
  pods,
  simNodeClass,
  writeSnapshot,
} from './support/snapshot.js';

const c4x = 'c-4x-amd64-linux';

/** A Deployment `web` with `replicas`, and its ReplicaSet `web-5d8f7c9b4` (as kubectl lists them). */
function deployment(replicas: number) {
  const template = {
    metadata: { labels: { app: 'web' } },
    spec: {
      containers: [
        { name: 'app', image: 'app:1', resources: { requests: { cpu: '500m', memory: '256Mi' } } },
      ],
    },
  };
  return [
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: 'default', uid: 'uid-web', creationTimestamp: EARLIER },
      spec: { replicas, selector: { matchLabels: { app: 'web' } }, template },
    },
    {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: {
        name: 'web-5d8f7c9b4',
        namespace: 'default',
        labels: { app: 'web', 'pod-template-hash': '5d8f7c9b4' },
        ownerReferences: [
          {
            apiVersion: 'apps/v1',
            kind: 'Deployment',
            name: 'web',
            uid: 'uid-web',
            controller: true,
          },
        ],
      },
      spec: {
        replicas,
        selector: { matchLabels: { app: 'web' } },
        template: {
          ...template,
          metadata: { labels: { app: 'web', 'pod-template-hash': '5d8f7c9b4' } },
        },
      },
    },
  ];
}

interface Report {
  pendingPods: number;
  workloads: { workload: string; present: number; pending: number }[];
  ignored: { source: string; object: string; kind: string; reason: string }[];
  commands: unknown[];
  cloud: string;
}

async function report(text: string): Promise<Report> {
  const file = await writeSnapshot(text);
  const { code, stdout, stderr } = await cli('disrupt', file, '--now', NOW, '-o', 'json');
  expect(stderr).toBe('');
  expect(code).toBe(0);
  return JSON.parse(stdout) as Report;
}

describe('karpenter-ts disrupt: reading a snapshot', () => {
  it('a Deployment whose pods are in the snapshot is not expanded again', async () => {
    const r = await report(
      list(simNodeClass(), nodePool(), machine('a', c4x), deployment(2), pods('web', 'a', 2)),
    );
    expect(r.cloud).toBe('sim');
    expect(r.pendingPods).toBe(0);
    expect(r.workloads).toEqual([]);
    expect(r.ignored).toContainEqual(
      expect.objectContaining({
        object: 'ReplicaSet/default/web-5d8f7c9b4',
        reason: 'owned by Deployment default/web, whose replicas count',
      }),
    );
  });

  it('replicas beyond the pods present are pending', async () => {
    const r = await report(
      list(simNodeClass(), nodePool(), machine('a', c4x), deployment(3), pods('web', 'a', 2)),
    );
    expect(r.pendingPods).toBe(1);
    expect(r.workloads).toEqual([{ workload: 'Deployment default/web', present: 2, pending: 1 }]);
  });

  it('says what it ignored and why: volumes, kinds that do not change scheduling, finished pods', async () => {
    // PVCs, PVs and StorageClasses are read (volume topology); attachments are not.
    const pvc = {
      apiVersion: 'storage.k8s.io/v1',
      kind: 'VolumeAttachment',
      metadata: { name: 'csi-0a1b' },
      spec: {
        attacher: 'ebs.csi.aws.com',
        nodeName: 'a',
        source: { persistentVolumeName: 'pv-1' },
      },
    };
    const service = {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'web', namespace: 'default' },
      spec: {},
    };
    const [done] = pods('batch', 'a', 1, { owner: 'Job:nightly', names: ['nightly-x7k2p'] }) as [
      Record<string, unknown>,
    ];
    done.status = { phase: 'Succeeded' };
    const r = await report(list(simNodeClass(), nodePool(), machine('a', c4x), pvc, service, done));
    expect(r.ignored.map((i) => [i.source, i.object, i.reason])).toEqual([
      [
        expect.stringMatching(/cluster\.yaml:1 items\[4\]$/),
        'VolumeAttachment/csi-0a1b',
        'volume attachments and CSI drivers do not change placement (PVCs, PVs, StorageClasses and CSINodes do)',
      ],
      [
        expect.stringMatching(/items\[5\]$/),
        'Service/default/web',
        'does not change scheduling or disruption',
      ],
      [
        expect.stringMatching(/items\[6\]$/),
        'Pod/default/nightly-x7k2p',
        'finished (Succeeded): it holds no resources',
      ],
    ]);
  });
});

describe('karpenter-ts disrupt: bad snapshots (exit 1, one line per problem, nothing run)', () => {
  async function refused(text: string): Promise<string[]> {
    const file = await writeSnapshot(text);
    const { code, stdout, stderr } = await cli('disrupt', file, '--now', NOW);
    expect(code).toBe(1);
    expect(stdout).toBe('');
    return stderr
      .trimEnd()
      .split('\n')
      .map((line) => line.replace(file, 'cluster.yaml'));
  }

  it('a pod bound to a Node the snapshot does not hold', async () => {
    expect(await refused(list(simNodeClass(), nodePool(), pods('web', 'gone-1', 1)))).toEqual([
      'karpenter-ts: error: cluster.yaml:1 items[2].spec.nodeName: Pod default/web-5d8f7c9b4-gone-1-0 is bound to Node "gone-1", which the snapshot does not hold: add the Nodes (kubectl get nodes,pods,... -o yaml)',
    ]);
  });

  it('a NodeClaim without its Node', async () => {
    const [claim] = machine('a', c4x);
    expect(await refused(list(simNodeClass(), nodePool(), claim!))).toEqual([
      'karpenter-ts: error: cluster.yaml:1 items[2].status.providerID: NodeClaim a has no Node in the snapshot (none with spec.providerID "kwok://a" or named "a"): add the Nodes (kubectl get nodes,nodeclaims,... -o yaml), or take the snapshot once the Node has registered',
    ]);
  });

  it('both at once: every problem is a line', async () => {
    const [claim] = machine('a', c4x);
    expect(
      await refused(list(simNodeClass(), nodePool(), claim!, pods('web', 'gone-1', 1))),
    ).toHaveLength(2);
  });

  it('objects of a kind a snapshot does not hold', async () => {
    const widget = { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' } };
    const lines = await refused(list(simNodeClass(), nodePool(), widget));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^karpenter-ts: error: cluster\.yaml:1 items\[2\]\.kind: Widget\/w: "Widget" \(example\.com\/v1\) is not a kind a cluster snapshot holds: the reader uses Node, Pod, NodeClaim, NodePool, .*; remove it from the input$/,
    );
  });

  it("a truncated file: cut inside a line, or cut before the List's closing kind", async () => {
    const text = list(simNodeClass(), nodePool(), machine('a', c4x), pods('web', 'a', 2));
    const cutInLine = text.slice(0, text.indexOf('phase: Running') + 'phase: Run'.length) + '\n  "';
    const [inLine] = await refused(cutInLine);
    expect(inLine).toMatch(/^karpenter-ts: error: cluster\.yaml:1:\d+ /);
    const cutAtLine = text.slice(0, text.lastIndexOf('\nkind: List') + 1);
    expect(await refused(cutAtLine)).toEqual([
      'karpenter-ts: error: cluster.yaml:1 kind: required: a non-empty string (this document has items but no kind: kubectl writes "kind: List" after the items, so the file looks truncated)',
    ]);
  });

  it('several files: the problem names the file it is in', async () => {
    const nodes = await writeSnapshot(
      list(simNodeClass(), nodePool(), machine('a', c4x)),
      'nodes.yaml',
    );
    const bad = await writeSnapshot(
      stringify({ apiVersion: 'v1', items: pods('web', 'b', 1), kind: 'List' }),
      'pods.yaml',
    );
    const { code, stderr } = await cli('disrupt', nodes, bad, '--now', NOW);
    expect(code).toBe(1);
    expect(stderr).toContain(
      `${bad}:1 items[0].spec.nodeName: Pod default/web-5d8f7c9b4-b-0 is bound to Node "b"`,
    );
  });
});
