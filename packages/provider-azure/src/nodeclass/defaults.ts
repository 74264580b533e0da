/**
 * The default AKSNodeClass and NodePool AKS node auto-provisioning (NAP) creates, for the CLI and
 * the simulator when the user brings none.
 */
import type { NodePool } from '@karpenter-ts/api';
import {
  AKSNodeClassKind,
  AKSNodeClassGroup,
  AKSNodeClassV1Beta1,
  type AKSNodeClass,
} from './types.js';

/** NAP's default AKSNodeClass `default`: Ubuntu, 128 GB OS disk, everything else at its default. */
export function defaultNodeClass(): AKSNodeClass {
  return {
    apiVersion: AKSNodeClassV1Beta1,
    kind: AKSNodeClassKind,
    metadata: { name: 'default' },
    spec: { imageFamily: 'Ubuntu', osDiskSizeGB: 128 },
  };
}

/**
 * The default Azure NodePool, modelled on NAP's `default` NodePool: Linux, amd64, on-demand,
 * general-purpose D-family sizes, referencing the `default` AKSNodeClass, consolidating when empty
 * or underutilized (with budget 100% like NAP), nodes never expire. Differs from NAP only in what
 * NAP adds for AKS bookkeeping (labels such as `kubernetes.azure.com/ebpf-dataplane`), which a
 * simulation does not need.
 */
export function defaultNodePool(): NodePool {
  return {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodePool',
    metadata: { name: 'default' },
    spec: {
      disruption: {
        consolidationPolicy: 'WhenEmptyOrUnderutilized',
        consolidateAfter: '0s',
        budgets: [{ nodes: '100%' }],
      },
      template: {
        spec: {
          nodeClassRef: { group: AKSNodeClassGroup, kind: AKSNodeClassKind, name: 'default' },
          expireAfter: 'Never',
          requirements: [
            { key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] },
            { key: 'kubernetes.io/os', operator: 'In', values: ['linux'] },
            { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand'] },
            { key: 'karpenter.azure.com/sku-family', operator: 'In', values: ['D'] },
          ],
        },
      },
    },
  };
}
