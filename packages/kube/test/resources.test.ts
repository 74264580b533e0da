import { describe, expect, it } from 'vitest';
import {
  BuiltinResources,
  LeaseResource,
  NodeClassResources,
  apiVersionOf,
  collectionPath,
  objectPath,
} from '../src/index.js';

describe('resource paths', () => {
  it('puts core kinds under /api/v1 and namespaced ones under their namespace', () => {
    expect(collectionPath(BuiltinResources.Pod, 'kube-system')).toBe(
      '/api/v1/namespaces/kube-system/pods',
    );
    expect(objectPath(BuiltinResources.Pod, 'web-0', 'default', 'eviction')).toBe(
      '/api/v1/namespaces/default/pods/web-0/eviction',
    );
    expect(objectPath(BuiltinResources.Node, 'node-a', undefined, 'status')).toBe(
      '/api/v1/nodes/node-a/status',
    );
  });

  it('lists a namespaced kind across all namespaces when no namespace is given', () => {
    expect(collectionPath(BuiltinResources.PodDisruptionBudget)).toBe(
      '/apis/policy/v1/poddisruptionbudgets',
    );
  });

  it('puts group kinds under /apis/<group>/<version>, cluster-scoped ones without a namespace', () => {
    expect(objectPath(BuiltinResources.NodeClaim, 'default-x7k2p')).toBe(
      '/apis/karpenter.sh/v1/nodeclaims/default-x7k2p',
    );
    expect(objectPath(LeaseResource, 'karpenter-leader-election', 'kube-system')).toBe(
      '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/karpenter-leader-election',
    );
  });

  it('gives the NodeClass kinds of both providers at their stored versions', () => {
    expect(NodeClassResources.map((r) => `${apiVersionOf(r)} ${r.kind}`)).toEqual([
      'karpenter.azure.com/v1beta1 AKSNodeClass',
      'karpenter.k8s.aws/v1 EC2NodeClass',
    ]);
  });

  it('refuses to address a namespaced object without a namespace', () => {
    expect(() => objectPath(BuiltinResources.Pod, 'web-0')).toThrow(
      /Pod web-0: metadata.namespace is required/,
    );
  });

  it('escapes names in paths', () => {
    expect(objectPath(BuiltinResources.Node, 'a/b')).toBe('/api/v1/nodes/a%2Fb');
  });
});
