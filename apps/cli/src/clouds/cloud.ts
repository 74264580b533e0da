/**
 * What the CLI needs from a cloud: its instance-type catalog for a region and NodeClass, the
 * NodeClass kind its NodePools reference, its documented default NodePool and NodeClass, and
 * validation of its NodeClass objects. One adapter per provider package; only the CLI picks.
 */
import type { NodePool } from '@karpenter-ts/api';
import type { InstanceType, NodeClassKind } from '@karpenter-ts/cloudprovider';
import type { KubeObject } from '../manifests/document.js';
import type { CloudName } from '../commands/options.js';
import { allowUndefinedWellKnownLabels, type Requirements } from '@karpenter-ts/scheduling';
import type { Launch } from '../simulation/launch.js';

/** One validation problem of a NodeClass: a field path (may be `''`) and a message. */
export interface NodeClassProblem {
  path: string;
  message: string;
}

/** A cloud region's catalog and conventions, as the CLI uses them. */
export interface Cloud {
  readonly name: CloudName;
  /** The region the catalog and prices are for. */
  readonly region: string;
  /** The NodeClass kind this cloud's NodePools reference (`nodeClassRef.group`/`kind`). */
  readonly nodeClassKind: NodeClassKind;
  /**
   * Every instance type a NodePool using `nodeClass` may launch in the region, with all
   * offerings (unavailable ones marked `available: false`). `nodeClass` undefined ⇒ the
   * default NodeClass. Raises CliError when the NodeClass cannot be used.
   */
  instanceTypes(nodeClass: KubeObject | undefined): readonly InstanceType[];
  /** The default NodePool and NodeClass used when the input has none, and where they are documented. */
  defaults(): { nodePool: NodePool; nodeClass: KubeObject; source: string };
  /**
   * The instance type and offering the cloud launches for a node claim with these options
   * (cheapest first) and requirements; undefined when none has an available compatible
   * offering. AWS: upstream's capacity-type order, then the cheapest offering; sim: the cheapest
   * offering; Azure: the provider's launch ranking.
   */
  chooseLaunch(options: readonly InstanceType[], requirements: Requirements): Launch | undefined;
  /** Validation problems of a NodeClass object of this cloud's kind (empty when valid). */
  validateNodeClass(object: KubeObject): NodeClassProblem[];
  /**
   * The provider's well-known labels: NodePools may set them, and pods may require them although
   * a NodePool does not mention them (the scheduler gets them as `wellKnownLabels`).
   */
  readonly wellKnownLabels: ReadonlySet<string>;
  /** Label domains the provider reserves (NodePools may not set labels there unless well known). */
  readonly restrictedLabelDomains: ReadonlySet<string>;
  /**
   * How the shipped data prices spot offerings when they are not observed spot prices, as a
   * short phrase for footnotes (`spot = 0.7 × on-demand (modelled)`); undefined when spot
   * prices are real.
   */
  readonly spotPricing: string | undefined;
}

/** Whether a NodePool's `nodeClassRef` names this cloud's NodeClass kind. */
export function referencesCloud(nodePool: NodePool, cloud: Cloud): boolean {
  const ref = nodePool.spec?.template?.spec?.nodeClassRef;
  return ref?.group === cloud.nodeClassKind.group && ref.kind === cloud.nodeClassKind.kind;
}

/**
 * Label keys a NodePool or node claim may leave undefined and still be compatible with an
 * offering that defines them: Karpenter's well-known labels plus the provider's, as upstream's
 * providers register theirs into the well-known set.
 */
export function allowUndefinedLabels(cloud: Cloud): ReadonlySet<string> {
  return allowUndefinedWellKnownLabels(cloud.wellKnownLabels);
}
