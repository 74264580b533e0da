/**
 * `--cloud sim`: the simulated cloud of @karpenter-ts/cloudprovider with upstream KWOK's 144
 * generic instance types (4 zones `test-zone-a..d`, spot and on-demand, KWOK prices). No NodeClass
 * settings change the catalog; its default NodePool asks for linux on-demand nodes.
 */
import { formatPath, objectMetaViolations, type NodePool } from '@karpenter-ts/api';
import {
  kwokInstanceTypes,
  KwokWellKnownLabels,
  KwokSpotDiscount,
  SimNodeClassKind,
  type InstanceType,
} from '@karpenter-ts/cloudprovider';
import type { KubeObject } from '../manifests/document.js';
import { allowUndefinedLabels, type Cloud, type NodeClassProblem } from './cloud.js';
import { chooseLaunch } from '../simulation/launch.js';

/** Region name reported for the sim cloud (it has zones but no region). */
export const SIM_REGION = 'sim';

/** The sim cloud's default NodePool: linux, on-demand, any KWOK instance type. */
export function simDefaultNodePool(): NodePool {
  return {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodePool',
    metadata: { name: 'default' },
    spec: {
      template: {
        spec: {
          nodeClassRef: {
            group: SimNodeClassKind.group,
            kind: SimNodeClassKind.kind,
            name: 'default',
          },
          requirements: [
            { key: 'kubernetes.io/os', operator: 'In', values: ['linux'] },
            { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand'] },
          ],
        },
      },
    },
  };
}

/** Creates the sim cloud (any region name is accepted and reported as given). */
export function simCloud(region: string = SIM_REGION): Cloud {
  let catalog: InstanceType[] | undefined;
  const cloud: Cloud = {
    name: 'sim',
    region,
    nodeClassKind: SimNodeClassKind,
    instanceTypes: () => (catalog ??= kwokInstanceTypes()),
    defaults: () => ({
      nodePool: simDefaultNodePool(),
      nodeClass: {
        apiVersion: `${SimNodeClassKind.group}/v1`,
        kind: SimNodeClassKind.kind,
        metadata: { name: 'default' },
      },
      source: 'karpenter-ts sim defaults (docs/cli.md)',
    }),
    // The SimNodeClass CRD leaves spec free-form: the apiserver's ObjectMeta checks (a name,
    // valid labels, ...) are all it applies.
    validateNodeClass: (object: KubeObject): NodeClassProblem[] =>
      objectMetaViolations(object.metadata).map(([path, message]) => ({
        path: formatPath(path),
        message,
      })),
    chooseLaunch: (options, requirements) =>
      chooseLaunch(options, requirements, allowUndefinedLabels(cloud)),
    wellKnownLabels: KwokWellKnownLabels,
    restrictedLabelDomains: new Set(),
    spotPricing: `spot = ${KwokSpotDiscount} × on-demand (KWOK)`,
  };
  return cloud;
}
