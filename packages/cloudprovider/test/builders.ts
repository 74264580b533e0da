/** Test builders: a NodeClaim or NodePool from a few options, and a settable clock. */
import type { NodeClaim, NodePool, NodeSelectorRequirementWithMinValues } from '@karpenter-ts/api';
import type { Clock } from '../src/index.js';

let counter = 0;

/** A NodeClaim of the `default` pool with the given requirements and requests (quantities). */
export function nodeClaim(
  options: {
    name?: string;
    requirements?: NodeSelectorRequirementWithMinValues[];
    requests?: Record<string, string>;
    nodeClassName?: string;
    nodePool?: string;
  } = {},
): NodeClaim {
  counter += 1;
  return {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodeClaim',
    metadata: {
      name: options.name ?? `default-${counter}`,
      labels: { 'karpenter.sh/nodepool': options.nodePool ?? 'default' },
    },
    spec: {
      requirements: options.requirements ?? [],
      nodeClassRef: {
        group: 'karpenter.sim',
        kind: 'SimNodeClass',
        name: options.nodeClassName ?? 'default',
      },
      ...(options.requests === undefined ? {} : { resources: { requests: options.requests } }),
    },
  };
}

/** A NodePool named `name` with no requirements. */
export function nodePool(name = 'default'): NodePool {
  return {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodePool',
    metadata: { name },
    spec: {
      template: {
        spec: {
          requirements: [],
          nodeClassRef: { group: 'karpenter.sim', kind: 'SimNodeClass', name: 'default' },
        },
      },
    },
  };
}

/** A clock that moves only when told. */
export class ManualClock implements Clock {
  constructor(private ms = Date.UTC(2025, 0, 1)) {}
  now(): number {
    return this.ms;
  }
  advanceSeconds(seconds: number): void {
    this.ms += seconds * 1000;
  }
}
