/**
 * The emulator's in-memory ARM state: resources by ID, long-running operations, quota limits and
 * a request log. Resource bodies are kept in ARM's JSON shape (`id`, `name`, `type`, `location`,
 * `tags`, `zones`, `properties`), so what a GET returns is what was stored.
 */
import { CommunityGalleries } from './community-galleries.js';
import { DiskEncryptionSets } from './disk-encryption-sets.js';
import { Subnets } from './subnets.js';

/** An ARM resource as stored (and returned). */
export interface ArmResource {
  id: string;
  name: string;
  type: string;
  location: string;
  tags?: Record<string, string>;
  zones?: string[];
  identity?: unknown;
  properties: Record<string, unknown> & { provisioningState: string };
  [key: string]: unknown;
}

/** A long-running operation (what the Azure-AsyncOperation URL reports). */
export interface ArmOperation {
  readonly id: string;
  readonly resourceId: string;
  readonly kind: 'create' | 'delete';
  readonly startTime: string;
  /** Polls still answered InProgress before the operation completes. */
  pollsLeft: number;
  /** When it was started or last polled (ms since the epoch): an operation left alone finishes. */
  lastPolledAt: number;
  status: 'InProgress' | 'Succeeded' | 'Failed';
  error?: { code: string; message: string };
  endTime?: string;
}

/** One request the emulator answered. */
export interface RequestRecord {
  readonly method: string;
  /** Path and query. */
  readonly url: string;
  readonly status: number;
  /** ARM error code when the answer was an error. */
  readonly errorCode?: string;
}

/** Core quota limits the emulator enforces on VM creation (vCPUs). Unset: unlimited. */
export interface QuotaLimits {
  /** ARM family (`standardDSv3Family`) -> limit of regular (non-spot) vCPUs. */
  readonly families: Map<string, number>;
  /** Spot (low priority) vCPUs. */
  lowPriority: number | undefined;
  /** All regular vCPUs in the region. */
  totalRegional: number | undefined;
}

/**
 * Everything the emulator holds. Inspect it from tests; mutate it only through the API and the
 * test controls documented as such ({@link EmulatorState.backdateVirtualMachine}).
 */
export class EmulatorState {
  /** Resource ID (lower case) -> resource. */
  readonly resources = new Map<string, ArmResource>();
  readonly operations = new Map<string, ArmOperation>();
  readonly requests: RequestRecord[] = [];
  readonly quota: QuotaLimits = {
    families: new Map(),
    lowPriority: undefined,
    totalRegional: undefined,
  };
  /** Community gallery image versions (seeded with AKS's node image definitions). */
  readonly communityGalleries = new CommunityGalleries();
  /** Subnets of virtual networks (put in place by tests; none at start). */
  readonly subnets = new Subnets();
  /** Disk encryption sets (put in place by tests; none at start). */
  readonly diskEncryptionSets = new DiskEncryptionSets();
  /** Errors raised by the VM boot hook (the VM still succeeds). */
  readonly bootErrors: { vm: string; error: string }[] = [];

  /** Resources of a type (`Microsoft.Compute/virtualMachines`), optionally in one resource group. */
  list(type: string, resourceGroup?: string): ArmResource[] {
    const rg = resourceGroup?.toLowerCase();
    return [...this.resources.values()].filter(
      (r) =>
        r.type.toLowerCase() === type.toLowerCase() &&
        (rg === undefined || resourceGroupOf(r.id) === rg),
    );
  }

  /** Virtual machines (ARM bodies). */
  virtualMachines(resourceGroup?: string): ArmResource[] {
    return this.list('Microsoft.Compute/virtualMachines', resourceGroup);
  }

  /** Network interfaces (ARM bodies). */
  networkInterfaces(resourceGroup?: string): ArmResource[] {
    return this.list('Microsoft.Network/networkInterfaces', resourceGroup);
  }

  /** Managed disks (ARM bodies). */
  disks(resourceGroup?: string): ArmResource[] {
    return this.list('Microsoft.Compute/disks', resourceGroup);
  }

  /**
   * Test control, not an ARM call: moves a VM's `properties.timeCreated` `seconds` into the past,
   * as if ARM had created it that long ago. Lets tests cross a garbage collector's grace period
   * (which reads `timeCreated`) without waiting. Raises Error when no VM `name` is in
   * `resourceGroup`, or when `seconds` is negative or not finite.
   */
  backdateVirtualMachine(resourceGroup: string, name: string, seconds: number): void {
    if (!(Number.isFinite(seconds) && seconds >= 0))
      throw new Error(`backdateVirtualMachine: seconds must be >= 0, got ${seconds}`);
    const vm = this.virtualMachines(resourceGroup).find(
      (v) => v.name.toLowerCase() === name.toLowerCase(),
    );
    if (!vm) throw new Error(`backdateVirtualMachine: no VM ${name} in ${resourceGroup}`);
    const created = Date.parse(String(vm.properties['timeCreated'] ?? new Date().toISOString()));
    vm.properties['timeCreated'] = new Date(created - seconds * 1000).toISOString();
  }

  /** Requests answered so far matching a method and a path fragment (case-insensitive). */
  requestsTo(method: string, pathFragment: string): RequestRecord[] {
    const frag = pathFragment.toLowerCase();
    return this.requests.filter((r) => r.method === method && r.url.toLowerCase().includes(frag));
  }
}

/** Lower-cased resource group of an ARM ID. */
export function resourceGroupOf(id: string): string | undefined {
  const m = /\/resourcegroups\/([^/]+)/i.exec(id);
  return m?.[1]?.toLowerCase();
}
