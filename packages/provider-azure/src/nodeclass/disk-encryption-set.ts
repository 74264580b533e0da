/**
 * The AKSNodeClass `ValidationSucceeded` check (upstream `Azure/karpenter-provider-azure`'s
 * validation): when the operator configures an OS disk encryption set
 * (`NODE_OSDISK_DISKENCRYPTIONSET_ID`), the controller's identity must be able to read it (Reader
 * on the set), which upstream checks with a GET of the set; without that role every launch would
 * fail at the VM create. Also the parsing of a disk encryption set ARM ID, which the operator's
 * settings use to refuse a malformed one at start.
 */
import type { DiskEncryptionSetsOperations } from '@azure/arm-compute';
import { armErrorOf, armErrorText, isNotFound } from '../launch/arm-errors.js';

/** The parts of a disk encryption set ARM ID, as written in it. */
export interface DiskEncryptionSetID {
  readonly subscriptionID: string;
  readonly resourceGroup: string;
  readonly name: string;
}

const DES_ID =
  /^\/subscriptions\/([^/]+)\/resourceGroups\/([^/]+)\/providers\/Microsoft\.Compute\/diskEncryptionSets\/([^/]+)$/i;

/** The form of a disk encryption set ARM ID, for messages. */
export const DiskEncryptionSetIDForm =
  '/subscriptions/<subscription>/resourceGroups/<rg>/providers/Microsoft.Compute/diskEncryptionSets/<name>';

/**
 * The parts of `/subscriptions/<s>/resourceGroups/<rg>/providers/Microsoft.Compute/diskEncryptionSets/<name>`
 * (segment names case-insensitive, as in ARM), or undefined when `id` is not of that form.
 */
export function parseDiskEncryptionSetID(id: string): DiskEncryptionSetID | undefined {
  const m = DES_ID.exec(id);
  if (!m) return undefined;
  const [, subscriptionID, resourceGroup, name] = m as unknown as [string, string, string, string];
  return { subscriptionID, resourceGroup, name };
}

/** Why `ValidationSucceeded` is False. `DiskEncryptionSetRBACMissing` is upstream's reason. */
export type DiskEncryptionSetInvalidReason =
  | 'DiskEncryptionSetRBACMissing'
  | 'DiskEncryptionSetNotFound'
  | 'DiskEncryptionSetUnknownError'
  | 'DiskEncryptionSetIDInvalid';

/** Outcome of {@link validateDiskEncryptionSet}. */
export type DiskEncryptionSetValidation =
  | {
      readonly valid: true;
      /** `NoDiskEncryptionSet` when none is configured (nothing was checked). */
      readonly reason?: 'NoDiskEncryptionSet';
      readonly message: string;
    }
  | {
      readonly valid: false;
      readonly reason: DiskEncryptionSetInvalidReason;
      /** Names the set's ID and what is wrong (ARM's code and message when ARM answered). */
      readonly message: string;
    };

/** What {@link validateDiskEncryptionSet} needs. */
export interface DiskEncryptionSetValidationOptions {
  /** Disk encryption sets operations of a subscription (`ArmClients.diskEncryptionSets`); only `get` is called. */
  diskEncryptionSets(subscriptionId: string): Pick<DiskEncryptionSetsOperations, 'get'>;
  /** `NODE_OSDISK_DISKENCRYPTIONSET_ID`; undefined: none configured. */
  readonly diskEncryptionSetID: string | undefined;
}

/**
 * Decides `ValidationSucceeded`: valid with reason `NoDiskEncryptionSet` when no set is
 * configured (no ARM call); `DiskEncryptionSetIDInvalid` for an ID that is not a disk encryption
 * set ARM ID (no ARM call); else a GET of the set with the controller's credential: success is
 * valid, 403 is `DiskEncryptionSetRBACMissing` (the identity lacks Reader on the set; the message
 * says how to grant it), 404 `DiskEncryptionSetNotFound`, any other failure
 * `DiskEncryptionSetUnknownError` with ARM's code and message (the caller checks again on its
 * next pass; upstream leaves the condition as it was instead). Never raises.
 */
export async function validateDiskEncryptionSet(
  options: DiskEncryptionSetValidationOptions,
): Promise<DiskEncryptionSetValidation> {
  const id = options.diskEncryptionSetID;
  if (id === undefined)
    return {
      valid: true,
      reason: 'NoDiskEncryptionSet',
      message:
        'nothing to validate: NODE_OSDISK_DISKENCRYPTIONSET_ID is not set, so OS disks use platform-managed keys',
    };
  const des = parseDiskEncryptionSetID(id);
  if (!des)
    return {
      valid: false,
      reason: 'DiskEncryptionSetIDInvalid',
      message: `NODE_OSDISK_DISKENCRYPTIONSET_ID ${JSON.stringify(id)} is not a disk encryption set ARM ID (${DiskEncryptionSetIDForm})`,
    };
  try {
    await options.diskEncryptionSets(des.subscriptionID).get(des.resourceGroup, des.name);
    return { valid: true, message: `disk encryption set ${id} is readable` };
  } catch (err) {
    const detail = armErrorText(err);
    if (armErrorOf(err)?.statusCode === 403)
      return {
        valid: false,
        reason: 'DiskEncryptionSetRBACMissing',
        message: `the controller's identity has no Reader role on disk encryption set ${id} (NODE_OSDISK_DISKENCRYPTIONSET_ID), so VMs with OS disks encrypted by it cannot be created; ARM answered ${detail}. Grant it: az role assignment create --role Reader --scope ${id} --assignee <the controller identity's client ID>`,
      };
    if (isNotFound(err))
      return {
        valid: false,
        reason: 'DiskEncryptionSetNotFound',
        message: `disk encryption set ${id} (NODE_OSDISK_DISKENCRYPTIONSET_ID) not found`,
      };
    return {
      valid: false,
      reason: 'DiskEncryptionSetUnknownError',
      message: `getting disk encryption set ${id}: ${detail}`,
    };
  }
}
