/**
 * The storage objects the provisioner reads, kept from watch events as the rest of cluster
 * state: PersistentVolumeClaims (by `namespace/name`), PersistentVolumes, StorageClasses and
 * CSINodes (by name). {@link StorageState.snapshot} hands the scheduler's volume topology a
 * consistent view for one pass.
 */
import type {
  CSINode,
  PersistentVolume,
  PersistentVolumeClaim,
  StorageClass,
} from '@karpenter-ts/api';

/** The storage objects at one moment, by key (see the module comment). */
export interface StorageObjects {
  readonly claims: ReadonlyMap<string, PersistentVolumeClaim>;
  readonly volumes: ReadonlyMap<string, PersistentVolume>;
  readonly storageClasses: ReadonlyMap<string, StorageClass>;
  readonly csiNodes: ReadonlyMap<string, CSINode>;
}

/** See the module comment. */
export class StorageState {
  readonly #claims = new Map<string, PersistentVolumeClaim>();
  readonly #volumes = new Map<string, PersistentVolume>();
  readonly #classes = new Map<string, StorageClass>();
  readonly #csiNodes = new Map<string, CSINode>();

  updateClaim(claim: PersistentVolumeClaim): void {
    this.#claims.set(claimKey(claim), claim);
  }
  deleteClaim(claim: PersistentVolumeClaim): void {
    this.#claims.delete(claimKey(claim));
  }
  updateVolume(volume: PersistentVolume): void {
    this.#volumes.set(volume.metadata?.name ?? '', volume);
  }
  deleteVolume(volume: PersistentVolume): void {
    this.#volumes.delete(volume.metadata?.name ?? '');
  }
  updateStorageClass(storageClass: StorageClass): void {
    this.#classes.set(storageClass.metadata?.name ?? '', storageClass);
  }
  deleteStorageClass(storageClass: StorageClass): void {
    this.#classes.delete(storageClass.metadata?.name ?? '');
  }
  updateCSINode(csiNode: CSINode): void {
    this.#csiNodes.set(csiNode.metadata?.name ?? '', csiNode);
  }
  deleteCSINode(csiNode: CSINode): void {
    this.#csiNodes.delete(csiNode.metadata?.name ?? '');
  }

  /** A copy of the maps (the objects are shared; they are never changed in place). */
  snapshot(): StorageObjects {
    return {
      claims: new Map(this.#claims),
      volumes: new Map(this.#volumes),
      storageClasses: new Map(this.#classes),
      csiNodes: new Map(this.#csiNodes),
    };
  }
}

function claimKey(claim: PersistentVolumeClaim): string {
  return `${claim.metadata?.namespace ?? 'default'}/${claim.metadata?.name ?? ''}`;
}
