/**
 * The machines of a snapshot, for a SimCloudProvider to adopt: every launched NodeClaim is a
 * running machine of the sim cloud (provider ID, instance type, zone and capacity type from its
 * labels, launched at its creation time), so garbage collection neither deletes the NodeClaims
 * as instances gone nor their instances as orphans, and termination finds what it deletes.
 * Pass a {@link SnapshotMachineStore} as the SimCloudProvider's `store`.
 */
import type { NodeClaim } from '@karpenter-ts/api';
import { Labels } from '@karpenter-ts/api';
import type { CapacityType, SimMachineRecord, SimMachineStore } from '@karpenter-ts/cloudprovider';
import { timeMs } from '../clock.js';
import type { ClusterSnapshot } from './snapshot.js';

/** USD/hour of a NodeClaim's offering, when the caller knows the catalog; 0 otherwise. */
export type MachinePrice = (nodeClaim: NodeClaim) => number;

/** One machine per launched NodeClaim of the snapshot (see the module comment). */
export function snapshotMachines(
  snapshot: ClusterSnapshot,
  price: MachinePrice = () => 0,
  nowMs = Date.now(),
): SimMachineRecord[] {
  const out: SimMachineRecord[] = [];
  for (const { object } of snapshot.nodeClaims) {
    const providerID = object.status?.providerID;
    if (!providerID) continue;
    const labels = object.metadata.labels ?? {};
    out.push({
      nodeClaim: structuredClone(object),
      instance: {
        providerID,
        nodeClaimName: object.metadata.name ?? '',
        instanceType: labels[Labels.InstanceType] ?? '',
        zone: labels[Labels.TopologyZone] ?? '',
        capacityType: (labels[Labels.CapacityType] ?? 'on-demand') as CapacityType,
        price: price(object),
        launchedAt: timeMs(object.metadata.creationTimestamp) ?? nowMs,
      },
    });
  }
  return out;
}

/**
 * A memory-only machine store that starts with the given machines: the first `load` returns
 * them, later ones return what was last saved (once), as a store that changed.
 */
export class SnapshotMachineStore implements SimMachineStore {
  #pending: readonly SimMachineRecord[] | undefined;

  constructor(machines: readonly SimMachineRecord[]) {
    this.#pending = machines;
  }

  load(): readonly SimMachineRecord[] | undefined {
    const out = this.#pending;
    this.#pending = undefined;
    return out;
  }

  save(_machines: readonly SimMachineRecord[]): void {
    // The provider keeps the machines it saved; nothing else reads this store.
  }
}
