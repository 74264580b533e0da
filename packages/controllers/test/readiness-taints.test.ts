/**
 * Readiness taints (issue 15, item 11; upstream v1.13): the Node Readiness Controller taints nodes
 * with keys under `readiness.k8s.io/` until its rules pass. Like the known ephemeral taints, they
 * are ignored for scheduling on an uninitialized managed node, and a node carrying one is not
 * initialized yet.
 */
import type { Node, NodeClaim, Taint } from '@karpenter-ts/api';
import { isKnownEphemeralTaint, Labels } from '@karpenter-ts/api';
import { describe, expect, it } from 'vitest';
import { Cluster, ManualClock, whyNotInitialized } from '../src/index.js';

const readiness = { key: 'readiness.k8s.io/network-ready', effect: 'NoSchedule' } as const;

const claim: NodeClaim = {
  apiVersion: 'karpenter.sh/v1',
  kind: 'NodeClaim',
  metadata: { name: 'default-abcde', labels: { [Labels.NodePool]: 'default' } },
  spec: { requirements: [], nodeClassRef: { group: 'g', kind: 'K', name: 'n' } },
  status: {
    providerID: 'sim:///z/default-abcde',
    capacity: { cpu: '4', memory: '8Gi', pods: '110' },
    allocatable: { cpu: '3900m', memory: '7Gi', pods: '110' },
  },
};

function node(labels: Record<string, string>, taints: Taint[]): Node {
  return {
    metadata: { name: 'node-1', labels: { [Labels.NodePool]: 'default', ...labels } },
    spec: { providerID: 'sim:///z/default-abcde', taints },
    status: {
      conditions: [{ type: 'Ready', status: 'True' }],
      capacity: { cpu: '4', memory: '8Gi', pods: '110' },
      allocatable: { cpu: '3', memory: '6Gi', pods: '110' },
    },
  };
}

describe('readiness.k8s.io/ taints', () => {
  it('are known ephemeral taints, by key prefix, any effect and value', () => {
    expect(isKnownEphemeralTaint(readiness)).toBe(true);
    expect(isKnownEphemeralTaint({ ...readiness, effect: 'NoExecute', value: 'x' })).toBe(true);
    expect(
      isKnownEphemeralTaint({ key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' }),
    ).toBe(true);
    expect(isKnownEphemeralTaint({ key: 'readiness.k8s.io', effect: 'NoSchedule' })).toBe(false);
    expect(
      isKnownEphemeralTaint({ key: 'example.com/readiness.k8s.io/x', effect: 'NoSchedule' }),
    ).toBe(false);
  });

  it('are ignored for scheduling while the managed node initializes, and count once it is initialized', () => {
    const cluster = new Cluster(new ManualClock());
    cluster.updateNodeClaim(claim);
    cluster.updateNode(node({ [Labels.Registered]: 'true' }, [readiness]));
    expect(cluster.nodes()[0]?.taints()).toEqual([]);
    cluster.updateNode(
      node({ [Labels.Registered]: 'true', [Labels.Initialized]: 'true' }, [readiness]),
    );
    expect(cluster.nodes()[0]?.taints()).toEqual([readiness]);
  });

  it('keep the node from being initialized until they are removed', () => {
    expect(whyNotInitialized(node({}, [readiness]), claim)).toEqual({
      reason: 'KnownEphemeralTaintsExist',
      message: 'KnownEphemeralTaint "readiness.k8s.io/network-ready:NoSchedule" still exists',
    });
    expect(whyNotInitialized(node({}, []), claim)).toBeUndefined();
  });
});
