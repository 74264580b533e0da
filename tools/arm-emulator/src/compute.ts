/**
 * `Microsoft.Compute/virtualMachines` and `Microsoft.Compute/disks`: create (validated, quota
 * checked, long-running), get, list, delete; the OS disk a VM implies is created with it (unless
 * ephemeral) and removed with it when its deleteOption is Delete, as are NICs.
 */
import { randomUUID } from 'node:crypto';
import { ArmError, invalidParameter } from './arm-error.js';
import { galleryImageNotFound, parseCommunityGalleryImageId } from './community-galleries.js';
import { isDiskEncryptionSetID } from './disk-encryption-sets.js';
import {
  acceptOperation,
  existingResource,
  isProvisioning,
  page,
  putExisting,
  resourceId,
  takeOperationError,
  takeOperationPolls,
  type ArmResponse,
  type EmulatorContext,
  type OperationProvider,
} from './context.js';
import { capacityMessage, quotaMessage, type RequestFacts } from './faults.js';
import {
  capability,
  ephemeralOSDiskLimitGB,
  sellableZones,
  skuVCPUs,
  type ResourceSku,
} from './resource-skus.js';
import type { ArmResource } from './state.js';

/** Operation links of Compute requests (API version when the request named none). */
const COMPUTE: OperationProvider = {
  namespace: 'Microsoft.Compute',
  defaultApiVersion: '2024-07-01',
};

const VM_TYPE = 'Microsoft.Compute/virtualMachines';
const DISK_TYPE = 'Microsoft.Compute/disks';
const NIC_TYPE = 'Microsoft.Network/networkInterfaces';

type Json = Record<string, unknown>;

function obj(v: unknown): Json | undefined {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : undefined;
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : undefined;
}

/** The facts a VM PUT is matched against (faults) and checked with (quota). */
export function vmFacts(name: string, body: unknown): RequestFacts {
  const props = obj(obj(body)?.['properties']);
  const zones = obj(body)?.['zones'];
  const priority =
    props?.['priority'] === 'Spot' || props?.['priority'] === 'Low' ? 'Spot' : 'Regular';
  return {
    method: 'PUT',
    resourceType: 'virtualMachines',
    name,
    ...(str(obj(props?.['hardwareProfile'])?.['vmSize']) !== undefined
      ? { vmSize: str(obj(props?.['hardwareProfile'])?.['vmSize']) as string }
      : {}),
    zone: Array.isArray(zones) && typeof zones[0] === 'string' ? zones[0] : null,
    priority,
  };
}

function validateVm(
  ctx: EmulatorContext,
  sub: string,
  rg: string,
  body: unknown,
): {
  sku: ResourceSku;
  location: string;
  zone: string | undefined;
  nicIds: string[];
  ephemeral: boolean;
  diskEncryptionSetId: string | undefined;
} {
  const vm = obj(body);
  if (!vm)
    throw new ArmError(
      400,
      'InvalidRequestContent',
      'The request content was invalid and could not be deserialized.',
    );
  const location = str(vm['location'])?.toLowerCase();
  if (!location)
    throw new ArmError(
      400,
      'LocationRequired',
      'The location property is required for this definition.',
    );
  const props = obj(vm['properties']);
  if (!props)
    throw invalidParameter('properties', "Required parameter 'properties' is missing (null).");
  const vmSize = str(obj(props['hardwareProfile'])?.['vmSize']);
  if (!vmSize)
    throw invalidParameter(
      'hardwareProfile.vmSize',
      "Required parameter 'vmSize' is missing (null).",
    );
  const sku = ctx.skus.get(vmSize);
  if (!sku)
    throw invalidParameter('vmSize', `The value ${vmSize} provided for the VM size is not valid.`);
  // Not sold in the region, or restricted there for the subscription: ARM's SkuNotAvailable.
  const sellable = sellableZones(sku, location);
  if (!sellable)
    throw new ArmError(
      409,
      'SkuNotAvailable',
      capacityMessage('SkuNotAvailable', vmSize, location),
    );
  const zones = vm['zones'];
  let zone: string | undefined;
  if (zones !== undefined) {
    if (
      !Array.isArray(zones) ||
      zones.length > 1 ||
      (zones.length === 1 && typeof zones[0] !== 'string')
    )
      throw invalidParameter(
        'zones',
        'A virtual machine can be placed in at most one zone, given as a list of one string.',
      );
    zone = zones[0] as string | undefined;
    if (zone !== undefined && !sellable.includes(zone))
      throw new ArmError(
        409,
        'SkuNotAvailable',
        capacityMessage('SkuNotAvailable', vmSize, `${location} zone ${zone}`),
      );
  }

  const storage = obj(props['storageProfile']);
  const image = obj(storage?.['imageReference']);
  if (
    !image ||
    !(
      str(image['id']) ||
      str(image['communityGalleryImageId']) ||
      str(image['sharedGalleryImageId']) ||
      (str(image['publisher']) && str(image['offer']) && str(image['sku']))
    )
  )
    throw invalidParameter(
      'imageReference',
      "Required parameter 'imageReference' is missing (null).",
    );
  const communityImage = str(image['communityGalleryImageId']);
  if (communityImage !== undefined) {
    // A node image that was never published, or was removed, fails the create as in Azure.
    const parts = parseCommunityGalleryImageId(communityImage);
    if (!parts)
      throw invalidParameter(
        'imageReference.communityGalleryImageId',
        `'${communityImage}' is not a community gallery image version ID (/CommunityGalleries/{gallery}/Images/{image}/Versions/{version}).`,
      );
    if (!ctx.state.communityGalleries.exists(parts.gallery, parts.image, parts.version))
      throw galleryImageNotFound(communityImage, location);
  }
  const osDisk = obj(storage?.['osDisk']);
  if (!osDisk || osDisk['createOption'] !== 'FromImage')
    throw invalidParameter(
      'osDisk.createOption',
      "The value of parameter osDisk.createOption must be 'FromImage' for a VM created from an image.",
    );
  const size = osDisk['diskSizeGB'];
  if (
    size !== undefined &&
    !(Number.isInteger(size) && (size as number) >= 1 && (size as number) <= 4095)
  )
    throw invalidParameter(
      'osDisk.diskSizeGB',
      `The value ${String(size)} of parameter 'osDisk.diskSizeGB' is out of range (1..4095).`,
    );
  const diff = obj(osDisk['diffDiskSettings']);
  const ephemeral = diff?.['option'] === 'Local';
  if (ephemeral) {
    const placement = (str(diff?.['placement']) ?? 'CacheDisk') as
      'NvmeDisk' | 'CacheDisk' | 'ResourceDisk';
    const limit = ephemeralOSDiskLimitGB(sku, placement);
    if (limit === 0)
      throw invalidParameter(
        'osDisk.diffDiskSettings',
        `VM size ${vmSize} does not support ephemeral OS disks with placement ${placement}.`,
      );
    if (typeof size === 'number' && size > limit)
      throw invalidParameter(
        'osDisk.diskSizeGB',
        `OS disk of Ephemeral VM with size greater than ${limit} GB is not allowed for VM size ${vmSize} when the DiffDiskPlacement is ${placement}.`,
      );
    if (osDisk['caching'] !== 'ReadOnly')
      throw invalidParameter(
        'osDisk.caching',
        "Ephemeral OS disks support only 'ReadOnly' caching.",
      );
  }
  const diskEncryptionSetId = validDiskEncryptionSet(ctx, osDisk);

  const os = obj(props['osProfile']);
  if (!str(os?.['adminUsername']))
    throw invalidParameter(
      'osProfile.adminUsername',
      "Required parameter 'adminUsername' is missing (null).",
    );
  if (!str(os?.['computerName']))
    throw invalidParameter(
      'osProfile.computerName',
      "Required parameter 'computerName' is missing (null).",
    );
  const customData = os?.['customData'];
  if (customData !== undefined) {
    if (typeof customData !== 'string' || !/^[A-Za-z0-9+/]*={0,2}$/.test(customData))
      throw invalidParameter('osProfile.customData', 'Custom data must be base64 encoded.');
    if (customData.length > 87380)
      throw invalidParameter(
        'osProfile.customData',
        'Custom data exceeds the 87380 character limit.',
      );
  }

  const priority = props['priority'];
  if (priority !== undefined && !['Regular', 'Low', 'Spot'].includes(priority as string))
    throw invalidParameter(
      'priority',
      `The value '${String(priority)}' of parameter 'priority' is not allowed.`,
    );
  if (priority === 'Spot' || priority === 'Low') {
    if (!['Deallocate', 'Delete'].includes(props['evictionPolicy'] as string))
      throw invalidParameter(
        'evictionPolicy',
        "Spot VMs need evictionPolicy 'Deallocate' or 'Delete'.",
      );
    const maxPrice = obj(props['billingProfile'])?.['maxPrice'];
    if (
      maxPrice !== undefined &&
      !(maxPrice === -1 || (typeof maxPrice === 'number' && maxPrice > 0))
    )
      throw invalidParameter('billingProfile.maxPrice', 'maxPrice must be -1 or greater than 0.');
    if (capability(sku, 'LowPriorityCapable') !== 'True')
      throw new ArmError(
        409,
        'SkuNotAvailable',
        `The requested VM size ${vmSize} is not available for Spot VMs in location '${location}'.`,
      );
  }

  const identity = obj(vm['identity']);
  if (identity) {
    const ids = obj(identity['userAssignedIdentities']) ?? {};
    for (const id of Object.keys(ids)) {
      if (
        !/^\/subscriptions\/[^/]+\/resourcegroups\/[^/]+\/providers\/Microsoft\.ManagedIdentity\/userAssignedIdentities\/[^/]+$/i.test(
          id,
        )
      )
        throw invalidParameter(
          'identity.userAssignedIdentities',
          `Resource identifier '${id}' is not a user-assigned identity ID.`,
        );
    }
  }

  const nics = obj(props['networkProfile'])?.['networkInterfaces'];
  if (!Array.isArray(nics) || nics.length === 0)
    throw invalidParameter(
      'networkProfile.networkInterfaces',
      'A virtual machine needs at least one network interface.',
    );
  const nicIds: string[] = [];
  for (const ref of nics) {
    const id = str(obj(ref)?.['id']);
    if (!id)
      throw invalidParameter(
        'networkProfile.networkInterfaces.id',
        "Required parameter 'id' is missing (null).",
      );
    const nic = ctx.state.resources.get(id.toLowerCase());
    if (!nic || nic.type !== NIC_TYPE)
      throw new ArmError(400, 'NotFound', `Resource ${id} not found.`);
    if (nic.location !== location)
      throw invalidParameter(
        'networkProfile.networkInterfaces',
        `Network interface ${id} is in location ${nic.location}, the VM in ${location}.`,
      );
    const owner = str(obj(nic.properties['virtualMachine'])?.['id']);
    if (owner && ctx.state.resources.has(owner.toLowerCase()))
      throw new ArmError(
        400,
        'NicInUse',
        `Network Interface ${id} is used by existing resource ${owner}.`,
      );
    nicIds.push(nic.id);
  }
  void sub;
  void rg;
  return { sku, location, zone, nicIds, ephemeral, diskEncryptionSetId };
}

/**
 * The `managedDisk.diskEncryptionSet.id` of an OS disk, undefined when none is named. ARM's
 * answers otherwise: 400 `LinkedInvalidPropertyId` for a value that is not a disk encryption set
 * ARM ID, 400 `BadRequest` (`DiskEncryptionSet '<id>' was not found.`) for one that does not exist.
 */
function validDiskEncryptionSet(ctx: EmulatorContext, osDisk: Json): string | undefined {
  const des = obj(obj(osDisk['managedDisk'])?.['diskEncryptionSet']);
  if (des === undefined || des['id'] === undefined) return undefined;
  const id = des['id'];
  if (typeof id !== 'string' || !isDiskEncryptionSetID(id))
    throw new ArmError(
      400,
      'LinkedInvalidPropertyId',
      `Property id '${String(id)}' at path 'properties.storageProfile.osDisk.managedDisk.diskEncryptionSet.id' is invalid. Expect fully qualified resource Id that start with '/subscriptions/{subscriptionId}' or '/providers/{resourceProviderNamespace}/'.`,
    );
  if (!ctx.state.diskEncryptionSets.get(id))
    throw new ArmError(400, 'BadRequest', `DiskEncryptionSet '${id}' was not found.`);
  return id;
}

function checkQuota(ctx: EmulatorContext, sku: ResourceSku, location: string, spot: boolean): void {
  const need = skuVCPUs(sku);
  const vms = ctx.state.virtualMachines().filter((v) => v.location === location);
  const vcpus = (v: ArmResource): number => {
    const size = str(obj(v.properties['hardwareProfile'])?.['vmSize']) ?? '';
    const s = ctx.skus.get(size);
    return s ? skuVCPUs(s) : 0;
  };
  const isSpot = (v: ArmResource): boolean =>
    ['Spot', 'Low'].includes(v.properties['priority'] as string);
  const q = ctx.state.quota;
  const deny = (quota: string, limit: number, usage: number): never => {
    throw new ArmError(
      409,
      'OperationNotAllowed',
      quotaMessage(quota, location, limit, usage, need),
    );
  };
  if (spot) {
    const usage = vms.filter(isSpot).reduce((a, v) => a + vcpus(v), 0);
    if (q.lowPriority !== undefined && usage + need > q.lowPriority)
      deny('LowPriorityCores', q.lowPriority, usage);
    return;
  }
  const regular = vms.filter((v) => !isSpot(v));
  const regionalUsage = regular.reduce((a, v) => a + vcpus(v), 0);
  if (q.totalRegional !== undefined && regionalUsage + need > q.totalRegional)
    deny('Total Regional Cores', q.totalRegional, regionalUsage);
  const familyLimit = sku.family === undefined ? undefined : q.families.get(sku.family);
  if (familyLimit !== undefined) {
    const usage = regular
      .filter(
        (v) =>
          ctx.skus.get(str(obj(v.properties['hardwareProfile'])?.['vmSize']) ?? '')?.family ===
          sku.family,
      )
      .reduce((a, v) => a + vcpus(v), 0);
    if (usage + need > familyLimit) deny(`${sku.family} Cores`, familyLimit, usage);
  }
}

/** Strips write-only fields (customData, adminPassword) from a VM as ARM does on GET. */
function publicView(vm: ArmResource): ArmResource {
  const copy = structuredClone(vm);
  const os = obj(copy.properties['osProfile']);
  if (os) {
    delete os['customData'];
    delete os['adminPassword'];
  }
  return copy;
}

/** PUT virtualMachines/{name}: validates, enforces quota and faults, starts the create operation. */
export function putVirtualMachine(
  ctx: EmulatorContext,
  sub: string,
  rg: string,
  name: string,
  body: unknown,
  apiVersion: string | undefined,
): ArmResponse {
  const id = resourceId(sub, rg, VM_TYPE, name);
  const existing = ctx.state.resources.get(id.toLowerCase());
  if (existing)
    return putExisting(
      ctx,
      { provider: COMPUTE, subscriptionId: sub, resourceId: id, apiVersion },
      existing,
      obj(body),
      publicView,
    );
  const { sku, location, zone, nicIds, ephemeral, diskEncryptionSetId } = validateVm(
    ctx,
    sub,
    rg,
    body,
  );
  const facts = vmFacts(name, body);
  checkQuota(ctx, sku, location, facts.priority === 'Spot');
  const error = takeOperationError(ctx, facts);
  const polls = takeOperationPolls(ctx, facts);

  const vm = structuredClone(obj(body) as Json) as unknown as ArmResource;
  vm.id = id;
  vm.name = name;
  vm.type = VM_TYPE;
  vm.location = location;
  if (zone !== undefined) vm.zones = [zone];
  vm.properties = {
    ...(vm.properties as Json),
    provisioningState: 'Creating',
    vmId: randomUUID(),
    timeCreated: new Date().toISOString(),
  };
  const osDisk = obj(obj(vm.properties['storageProfile'])?.['osDisk']) as Json;
  osDisk['osType'] = 'Linux';
  osDisk['name'] = str(osDisk['name']) ?? `${name}_OsDisk_1_${randomUUID().replaceAll('-', '')}`;
  if (!ephemeral) {
    const diskId = resourceId(sub, rg, DISK_TYPE, osDisk['name'] as string);
    const storageAccountType =
      str(obj(osDisk['managedDisk'])?.['storageAccountType']) ??
      (capability(sku, 'PremiumIO') === 'True' ? 'Premium_LRS' : 'StandardSSD_LRS');
    osDisk['managedDisk'] = { ...obj(osDisk['managedDisk']), id: diskId, storageAccountType };
    ctx.state.resources.set(diskId.toLowerCase(), {
      id: diskId,
      name: osDisk['name'] as string,
      type: DISK_TYPE,
      location,
      ...(zone !== undefined ? { zones: [zone] } : {}),
      ...(vm.tags ? { tags: { ...vm.tags } } : {}),
      managedBy: id,
      sku: {
        name: storageAccountType,
        tier: storageAccountType.startsWith('Premium') ? 'Premium' : 'Standard',
      },
      properties: {
        provisioningState: 'Succeeded',
        diskSizeGB: (osDisk['diskSizeGB'] as number | undefined) ?? 30,
        diskState: 'Attached',
        osType: 'Linux',
        encryption: diskEncryptionSetId
          ? { type: 'EncryptionAtRestWithCustomerKey', diskEncryptionSetId }
          : { type: 'EncryptionAtRestWithPlatformKey' },
        creationData: { createOption: 'FromImage' },
        timeCreated: new Date().toISOString(),
      },
    });
  }
  const customData = str(obj(vm.properties['osProfile'])?.['customData']);
  ctx.secrets.set(id.toLowerCase(), {
    customData: customData ? Buffer.from(customData, 'base64').toString('utf8') : '',
  });
  for (const nicId of nicIds) {
    const nic = ctx.state.resources.get(nicId.toLowerCase()) as ArmResource;
    nic.properties['virtualMachine'] = { id };
  }
  ctx.state.resources.set(id.toLowerCase(), vm);
  return acceptOperation(
    ctx,
    {
      provider: COMPUTE,
      subscriptionId: sub,
      resourceId: id,
      kind: 'create',
      location,
      apiVersion,
      polls,
      error,
    },
    201,
    publicView(vm),
  );
}

/** GET virtualMachines/{name}. */
export function getVirtualMachine(
  ctx: EmulatorContext,
  sub: string,
  rg: string,
  name: string,
): ArmResponse {
  return { status: 200, body: publicView(existingResource(ctx, sub, rg, VM_TYPE, name)) };
}

/** GET virtualMachines (one resource group), paged. */
export function listVirtualMachines(ctx: EmulatorContext, rg: string, url: URL): ArmResponse {
  return { status: 200, body: page(ctx, ctx.state.virtualMachines(rg).map(publicView), url) };
}

/** DELETE virtualMachines/{name}: 204 when absent, else a delete operation (202). */
export function deleteVirtualMachine(
  ctx: EmulatorContext,
  sub: string,
  rg: string,
  name: string,
  apiVersion: string | undefined,
): ArmResponse {
  const id = resourceId(sub, rg, VM_TYPE, name);
  const vm = ctx.state.resources.get(id.toLowerCase());
  if (!vm) return { status: 204 };
  const facts: RequestFacts = { method: 'DELETE', resourceType: 'virtualMachines', name };
  const error = takeOperationError(ctx, facts);
  const polls = takeOperationPolls(ctx, facts);
  vm.properties.provisioningState = 'Deleting';
  return acceptOperation(
    ctx,
    {
      provider: COMPUTE,
      subscriptionId: sub,
      resourceId: id,
      kind: 'delete',
      location: vm.location,
      apiVersion,
      polls,
      error,
    },
    202,
  );
}

/** Completes a VM operation: boot (and hook) on create, removal with dependents on delete. */
export async function completeVmOperation(
  ctx: EmulatorContext,
  vm: ArmResource,
  kind: 'create' | 'delete',
  failed: boolean,
): Promise<void> {
  if (kind === 'create') {
    // A create joined by a later PUT ends with whichever operation is polled out first.
    if (!isProvisioning(vm)) return;
    vm.properties.provisioningState = failed ? 'Failed' : 'Succeeded';
    if (!failed && ctx.onVmBooted) {
      try {
        await ctx.onVmBooted({
          vm: publicView(vm),
          customData: ctx.secrets.get(vm.id.toLowerCase())?.customData ?? '',
        });
      } catch (e) {
        ctx.state.bootErrors.push({ vm: vm.id, error: e instanceof Error ? e.message : String(e) });
      }
    }
    return;
  }
  if (failed) {
    vm.properties.provisioningState = 'Failed';
    return;
  }
  ctx.state.resources.delete(vm.id.toLowerCase());
  ctx.secrets.delete(vm.id.toLowerCase());
  const osDisk = obj(obj(vm.properties['storageProfile'])?.['osDisk']);
  const diskId = str(obj(osDisk?.['managedDisk'])?.['id']);
  if (diskId) {
    const disk = ctx.state.resources.get(diskId.toLowerCase());
    if (disk && osDisk?.['deleteOption'] === 'Delete')
      ctx.state.resources.delete(diskId.toLowerCase());
    else if (disk) {
      delete disk['managedBy'];
      disk.properties['diskState'] = 'Unattached';
    }
  }
  const nics = obj(vm.properties['networkProfile'])?.['networkInterfaces'];
  for (const ref of Array.isArray(nics) ? nics : []) {
    const nicId = str(obj(ref)?.['id']);
    if (!nicId) continue;
    const nic = ctx.state.resources.get(nicId.toLowerCase());
    if (!nic) continue;
    if (obj(obj(ref)?.['properties'])?.['deleteOption'] === 'Delete')
      ctx.state.resources.delete(nicId.toLowerCase());
    else delete nic.properties['virtualMachine'];
  }
}

/** GET disks/{name}. */
export function getDisk(ctx: EmulatorContext, sub: string, rg: string, name: string): ArmResponse {
  return { status: 200, body: existingResource(ctx, sub, rg, DISK_TYPE, name) };
}

/** GET disks (one resource group), paged. */
export function listDisks(ctx: EmulatorContext, rg: string, url: URL): ArmResponse {
  return { status: 200, body: page(ctx, ctx.state.disks(rg), url) };
}

/** DELETE disks/{name}: 204 when absent, 409 while attached, else a delete operation. */
export function deleteDisk(
  ctx: EmulatorContext,
  sub: string,
  rg: string,
  name: string,
  apiVersion: string | undefined,
): ArmResponse {
  const id = resourceId(sub, rg, DISK_TYPE, name);
  const disk = ctx.state.resources.get(id.toLowerCase());
  if (!disk) return { status: 204 };
  const owner = str(disk['managedBy']);
  if (owner && ctx.state.resources.has(owner.toLowerCase()))
    throw new ArmError(409, 'OperationNotAllowed', `Disk ${name} is attached to VM ${owner}.`);
  disk.properties.provisioningState = 'Deleting';
  return acceptOperation(
    ctx,
    {
      provider: COMPUTE,
      subscriptionId: sub,
      resourceId: id,
      kind: 'delete',
      location: disk.location,
      apiVersion,
      polls: ctx.defaultOperationPolls,
    },
    202,
  );
}
