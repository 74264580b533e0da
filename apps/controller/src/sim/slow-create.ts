/**
 * A slow cloud API for the sim provider (`--sim-create-delay`): `create` launches at once (the
 * machine runs, and in kwok-like mode its Node registers) but answers only after the delay, as
 * a real cloud whose launch call returns long after the instance exists. A controller killed in
 * that window has launched a machine it never recorded on the NodeClaim: the fault that launch
 * idempotency and garbage collection must absorb.
 */
import type { NodeClaim, NodePool } from '@karpenter-ts/api';
import type {
  CloudProvider,
  InstanceType,
  NodeClassKind,
  RepairPolicy,
} from '@karpenter-ts/cloudprovider';

/** Wraps `cloud` so `create` answers `delaySeconds` after it returned; other calls pass through. */
export class SlowCreateCloudProvider implements CloudProvider {
  readonly name: string;

  /** Raises RangeError for a negative delay. */
  constructor(
    private readonly cloud: CloudProvider,
    private readonly delaySeconds: number,
  ) {
    if (!(delaySeconds >= 0))
      throw new RangeError(`delaySeconds must be >= 0, got ${delaySeconds}`);
    this.name = cloud.name;
  }

  async create(nodeClaim: NodeClaim): Promise<NodeClaim> {
    const launched = await this.cloud.create(nodeClaim);
    await new Promise((resolve) => setTimeout(resolve, this.delaySeconds * 1000));
    return launched;
  }

  delete(nodeClaim: NodeClaim): Promise<void> {
    return this.cloud.delete(nodeClaim);
  }

  get(providerID: string): Promise<NodeClaim> {
    return this.cloud.get(providerID);
  }

  list(): Promise<NodeClaim[]> {
    return this.cloud.list();
  }

  getInstanceTypes(nodePool: NodePool): Promise<InstanceType[]> {
    return this.cloud.getInstanceTypes(nodePool);
  }

  isDrifted(nodeClaim: NodeClaim): Promise<string> {
    return this.cloud.isDrifted(nodeClaim);
  }

  repairPolicies(): readonly RepairPolicy[] {
    return this.cloud.repairPolicies();
  }

  getSupportedNodeClasses(): readonly NodeClassKind[] {
    return this.cloud.getSupportedNodeClasses();
  }
}
