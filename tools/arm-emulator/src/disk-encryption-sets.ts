/**
 * `Microsoft.Compute/diskEncryptionSets/{name}`: GET, in ARM's shape. Disk encryption sets are
 * put in place by tests ({@link DiskEncryptionSets.put}); the emulator creates none itself and
 * serves no PUT, list or DELETE of them. A VM PUT naming one in
 * `osDisk.managedDisk.diskEncryptionSet.id` must name one held here (compute.ts).
 *
 * A disk encryption set missing from its resource group is the resource manager's 404
 * `ResourceNotFound`; error faults (e.g. 403 `AuthorizationFailed`, the answer to an identity
 * without Reader on the set) match `resourceType: 'diskEncryptionSets'`.
 */
import { randomUUID } from 'node:crypto';
import { ArmError, resourceNotFound } from './arm-error.js';
import { resourceId, type ArmResponse, type EmulatorContext } from './context.js';

/** The ARM `type` of a disk encryption set. */
export const DISK_ENCRYPTION_SET_TYPE = 'Microsoft.Compute/diskEncryptionSets';
const DES_ID =
  /^\/subscriptions\/([^/]+)\/resourceGroups\/([^/]+)\/providers\/Microsoft\.Compute\/diskEncryptionSets\/([^/]+)$/i;

/** The encryption types ARM accepts on a disk encryption set. */
export type DiskEncryptionType =
  | 'EncryptionAtRestWithCustomerKey'
  | 'EncryptionAtRestWithPlatformAndCustomerKeys'
  | 'ConfidentialVmEncryptedWithCustomerKey';

/** A disk encryption set to put in place. */
export interface DiskEncryptionSetSpec {
  /** ARM ID (`/subscriptions/<s>/resourceGroups/<rg>/providers/Microsoft.Compute/diskEncryptionSets/<name>`). */
  readonly id: string;
  /** Region, lower-cased when stored; default `southcentralus`. */
  readonly location?: string;
  /** Default `EncryptionAtRestWithCustomerKey`. */
  readonly encryptionType?: DiskEncryptionType;
  /** Key Vault key URL; default a made-up `https://<name>-kv.vault.azure.net/keys/disk/<version>`. */
  readonly keyUrl?: string;
}

/** A disk encryption set as ARM returns it. */
export interface ArmDiskEncryptionSet {
  readonly id: string;
  readonly name: string;
  readonly type: typeof DISK_ENCRYPTION_SET_TYPE;
  readonly location: string;
  readonly identity: {
    readonly type: 'SystemAssigned';
    readonly principalId: string;
    readonly tenantId: string;
  };
  readonly properties: {
    readonly provisioningState: 'Succeeded';
    readonly encryptionType: DiskEncryptionType;
    readonly activeKey: { readonly keyUrl: string };
    readonly rotationToLatestKeyVersionEnabled: boolean;
  };
}

const ENCRYPTION_TYPES: readonly DiskEncryptionType[] = [
  'EncryptionAtRestWithCustomerKey',
  'EncryptionAtRestWithPlatformAndCustomerKeys',
  'ConfidentialVmEncryptedWithCustomerKey',
];

/** Whether `id` has the form of a disk encryption set ARM ID (segment names case-insensitive). */
export function isDiskEncryptionSetID(id: string): boolean {
  return DES_ID.test(id);
}

/** The disk encryption sets of the emulator, by ID (lower case). */
export class DiskEncryptionSets {
  readonly #byId = new Map<string, ArmDiskEncryptionSet>();

  /**
   * Puts a disk encryption set in place (replacing one of the same ID, case-insensitive). Test
   * control, not an ARM call. Raises ArmError 400 `InvalidParameter` for an ID that is not a
   * disk encryption set ARM ID, an unknown encryption type or a key URL that is not https.
   */
  put(spec: DiskEncryptionSetSpec): void {
    const id = typeof spec?.id === 'string' ? spec.id : '';
    const m = DES_ID.exec(id);
    if (!m)
      throw new ArmError(
        400,
        'InvalidParameter',
        `${JSON.stringify(id)} is not a disk encryption set ARM ID (/subscriptions/<s>/resourceGroups/<rg>/providers/Microsoft.Compute/diskEncryptionSets/<name>).`,
      );
    const name = m[3] as string;
    const encryptionType = spec.encryptionType ?? 'EncryptionAtRestWithCustomerKey';
    if (!ENCRYPTION_TYPES.includes(encryptionType))
      throw new ArmError(
        400,
        'InvalidParameter',
        `encryptionType ${JSON.stringify(encryptionType)} is not one of ${ENCRYPTION_TYPES.join(', ')}.`,
      );
    const keyUrl =
      spec.keyUrl ??
      `https://${name.toLowerCase()}-kv.vault.azure.net/keys/disk/${randomUUID().replaceAll('-', '')}`;
    if (!/^https:\/\/[^/]+\/keys\/[^/]+/.test(keyUrl))
      throw new ArmError(
        400,
        'InvalidParameter',
        `keyUrl ${JSON.stringify(keyUrl)} is not a Key Vault key URL (https://<vault>.vault.azure.net/keys/<key>/<version>).`,
      );
    this.#byId.set(id.toLowerCase(), {
      id,
      name,
      type: DISK_ENCRYPTION_SET_TYPE,
      location: (spec.location ?? 'southcentralus').toLowerCase(),
      identity: { type: 'SystemAssigned', principalId: randomUUID(), tenantId: randomUUID() },
      properties: {
        provisioningState: 'Succeeded',
        encryptionType,
        activeKey: { keyUrl },
        rotationToLatestKeyVersionEnabled: false,
      },
    });
  }

  /** Removes a disk encryption set; false when there was none. Test control. */
  remove(id: string): boolean {
    return this.#byId.delete(id.toLowerCase());
  }

  /** IDs of the disk encryption sets held, as put. */
  ids(): string[] {
    return [...this.#byId.values()].map((d) => d.id);
  }

  /** The disk encryption set of `id` (case-insensitive, a copy), or undefined. */
  get(id: string): ArmDiskEncryptionSet | undefined {
    const des = this.#byId.get(id.toLowerCase());
    return des === undefined ? undefined : structuredClone(des);
  }
}

/** GET diskEncryptionSets/{name}: the set, an error fault, or 404 `ResourceNotFound`. */
export function getDiskEncryptionSet(
  ctx: EmulatorContext,
  sub: string,
  rg: string,
  name: string,
): ArmResponse {
  const failure = ctx.faults.take({ method: 'GET', resourceType: 'diskEncryptionSets', name }, [
    'error',
  ]);
  if (failure?.kind === 'error') throw new ArmError(failure.status, failure.code, failure.message);
  const des = ctx.state.diskEncryptionSets.get(resourceId(sub, rg, DISK_ENCRYPTION_SET_TYPE, name));
  if (!des) throw resourceNotFound(DISK_ENCRYPTION_SET_TYPE, rg, name);
  return { status: 200, body: des };
}
