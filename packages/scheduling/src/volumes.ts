/**
 * Volumes in scheduling (upstream `volumetopology.go`,
 * `pkg/scheduling/volumeusage.go`): the zones (or other node labels) a pod's volumes allow, as
 * alternatives of requirements, and the volumes it attaches, counted against an existing node's
 * CSI attach limits. The scheduler does not read PersistentVolumeClaims itself: the caller
 * (packages/controllers) resolves them into {@link PodVolumes}.
 */
import type { Requirements } from './requirements.js';

/** One volume a pod attaches: its CSI driver and an identity shared by every pod using it. */
export interface VolumeAttachment {
  /** CSI driver name, e.g. `ebs.csi.aws.com`, `disk.csi.azure.com`. */
  readonly driver: string;
  /** The volume's identity: the PersistentVolumeClaim `namespace/name`. */
  readonly volume: string;
}

/** What a pod's volumes mean for its placement. */
export interface PodVolumes {
  /**
   * Node requirements the volumes allow, one alternative each (the cross product over the pod's
   * volumes), tried in order; empty when the volumes do not constrain placement. They narrow
   * the node, not the pod's own affinity: topology spread still counts by the pod's affinity.
   */
  readonly requirements: readonly Requirements[];
  /** Volumes attached through a CSI driver (counted against CSINode attach limits). */
  readonly attachments: readonly VolumeAttachment[];
}

/**
 * The volumes attached to one node, per driver, and the node's limits (upstream
 * `VolumeUsage`): a pod fits when, per driver, the volumes it adds that are not already there
 * stay within the limit. A driver without a limit is unlimited.
 */
export class VolumeUsage {
  readonly #byDriver = new Map<string, Set<string>>();

  /** @param limits attach limit per CSI driver (CSINode `spec.drivers[].allocatable.count`). */
  constructor(private readonly limits: Readonly<Record<string, number>>) {}

  /** An independent usage with the same limits and attached volumes. */
  copy(): VolumeUsage {
    const out = new VolumeUsage(this.limits);
    for (const [driver, set] of this.#byDriver) out.#byDriver.set(driver, new Set(set));
    return out;
  }

  /** Records volumes as attached. */
  add(attachments: readonly VolumeAttachment[]): void {
    for (const a of attachments) {
      let set = this.#byDriver.get(a.driver);
      if (set === undefined) this.#byDriver.set(a.driver, (set = new Set()));
      set.add(a.volume);
    }
  }

  /** `driver: N volumes > limit M` for the first limit the attachments would exceed, or undefined. */
  exceeds(attachments: readonly VolumeAttachment[]): string | undefined {
    const added = new Map<string, Set<string>>();
    for (const a of attachments) {
      if (this.#byDriver.get(a.driver)?.has(a.volume)) continue;
      let set = added.get(a.driver);
      if (set === undefined) added.set(a.driver, (set = new Set()));
      set.add(a.volume);
    }
    for (const [driver, set] of added) {
      const limit = this.limits[driver];
      if (limit === undefined) continue;
      const total = (this.#byDriver.get(driver)?.size ?? 0) + set.size;
      if (total > limit) return `${driver}: ${total} volumes > attach limit ${limit}`;
    }
    return undefined;
  }
}
