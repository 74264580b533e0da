/**
 * The sim cloud launching as the chosen provider would: before the sim records a machine for a
 * NodeClaim, the provider's own launch ranking (`Cloud.chooseLaunch`: Azure's price, spot and
 * zonal order; AWS's capacity-type order, then the cheapest offering) picks the instance type
 * and offering among the NodeClaim's options, and the sim launches exactly that. Without a
 * choice (no available offering) the sim answers as it would (insufficient capacity). Every
 * other call goes to the sim. Used for the Azure and AWS clouds; the `sim` cloud launches as the
 * controller's sim provider does, which is its own ranking.
 */
import type { NodeClaim, NodePool, NodeSelectorRequirementWithMinValues } from '@karpenter-ts/api';
import { Labels } from '@karpenter-ts/api';
import {
  orderByPrice,
  type CloudProvider,
  type InstanceType,
  type NodeClassKind,
  type RepairPolicy,
  type SimCloudProvider,
} from '@karpenter-ts/cloudprovider';
import { Requirements } from '@karpenter-ts/scheduling';
import type { Cloud } from '../clouds/cloud.js';

/** See the module comment. */
export class RankedLaunchCloud implements CloudProvider {
  readonly name: string;

  constructor(
    private readonly sim: SimCloudProvider,
    private readonly cloud: Cloud,
    /** The instance types of a NodePool, by name. */
    private readonly instanceTypes: (poolName: string) => readonly InstanceType[],
  ) {
    this.name = sim.name;
  }

  async create(nodeClaim: NodeClaim): Promise<NodeClaim> {
    const requirements = Requirements.fromNodeSelectorRequirements(nodeClaim.spec.requirements);
    const names = requirements.get(Labels.InstanceType);
    const pool = nodeClaim.metadata.labels?.[Labels.NodePool] ?? '';
    const options = orderByPrice(
      this.instanceTypes(pool).filter((it) => names.has(it.name)),
      requirements,
    );
    const launch = this.cloud.chooseLaunch(options, requirements);
    if (launch === undefined) return this.sim.create(nodeClaim);
    const pinned: Record<string, string> = {
      [Labels.InstanceType]: launch.instanceType.name,
      [Labels.TopologyZone]: launch.offering.zone,
      [Labels.CapacityType]: launch.offering.capacityType,
    };
    const narrowed: NodeSelectorRequirementWithMinValues[] = [
      ...nodeClaim.spec.requirements.filter((r) => pinned[r.key] === undefined),
      ...Object.entries(pinned).map(([key, value]) => ({
        key,
        operator: 'In' as const,
        values: [value],
      })),
    ];
    return this.sim.create({ ...nodeClaim, spec: { ...nodeClaim.spec, requirements: narrowed } });
  }

  delete(nodeClaim: NodeClaim): Promise<void> {
    return this.sim.delete(nodeClaim);
  }

  get(providerID: string): Promise<NodeClaim> {
    return this.sim.get(providerID);
  }

  list(): Promise<NodeClaim[]> {
    return this.sim.list();
  }

  getInstanceTypes(nodePool: NodePool): Promise<InstanceType[]> {
    return this.sim.getInstanceTypes(nodePool);
  }

  isDrifted(nodeClaim: NodeClaim): Promise<string> {
    return this.sim.isDrifted(nodeClaim);
  }

  repairPolicies(): readonly RepairPolicy[] {
    return this.sim.repairPolicies();
  }

  getSupportedNodeClasses(): readonly NodeClassKind[] {
    return this.sim.getSupportedNodeClasses();
  }
}
