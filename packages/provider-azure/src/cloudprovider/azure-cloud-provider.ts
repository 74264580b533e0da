/**
 * The Azure (AKS) cloud provider: launches node claims as VMs through ARM (NIC, then VM), reads
 * them back, deletes them, reports drift, and lists leaked resources for garbage collection.
 * Behaviour follows upstream's `aksscriptless` VM path of `Azure/karpenter-provider-azure`; the
 * differences are listed in the package README.
 */
import type { VirtualMachine } from '@azure/arm-compute';
import type { NodeClaim, NodePool } from '@karpenter-ts/api';
import {
  CreateError,
  InsufficientCapacityError,
  kubeletMaySet,
  launchNodeClaimName,
  launchRequests,
  NodeClaimNotFoundError,
  NodeClassNotReadyError,
  systemClock,
  type CloudProvider,
  type Clock,
  type InstanceType,
  type NodeClassKind,
  type OfferingKey,
  type RepairPolicy,
} from '@karpenter-ts/cloudprovider';
import { Requirements, formatResourceList } from '@karpenter-ts/scheduling';
import { AKSLabels, AzureLabels } from '../labels.js';
import { allAzureSkus, type AzureSku } from '../catalog/sku.js';
import { REGIONAL_ZONE } from '../catalog/zones.js';
import type { AzurePricing } from '../catalog/pricing.js';
import { AzureCatalog, instanceTypeParameters } from '../instancetype/get-instance-types.js';
import type { AzureInstanceType } from '../instancetype/instance-type.js';
import { clusterLabelValue } from '../instancetype/labels.js';
import { AKSNodeClassGroup, AKSNodeClassKind, type AKSNodeClass } from '../nodeclass/types.js';
import {
  armErrorOf,
  classifyLaunchError,
  isNotFound,
  type AttemptedOffering,
} from '../launch/arm-errors.js';
import { OperationTimeoutError, waitBounded } from '../launch/bounded-wait.js';
import { bootstrapCustomData } from '../launch/custom-data.js';
import { dnsServiceIPProblem, nodeIPFamily, type NodeIPFamily } from '../launch/ip-family.js';
import { imageForInstanceType } from '../launch/images.js';
import {
  nodeClaimNameForVm,
  parseProviderID,
  providerIDForVm,
  vmNameForNodeClaim,
} from '../launch/naming.js';
import { launchCandidates, type LaunchCandidate } from '../launch/selection.js';
import { isClusterResource, launchTags, LaunchTags } from '../launch/tags.js';
import { UnavailableOfferingsCache } from '../launch/unavailable-offerings.js';
import { networkInterfaceBody, virtualMachineBody } from '../launch/vm-template.js';
import { driftReason, KubeletIdentityLabel } from './drift.js';
import { nodeClaimFromVm } from './instance.js';
import {
  NodeClassHashAnnotation,
  NodeClassHashVersion,
  NodeClassHashVersionAnnotation,
  currentNodeClassHash,
} from './nodeclass-hash.js';
import type { AzureCloudProviderOptions } from './options.js';

const NodePoolLabel = 'karpenter.sh/nodepool';

/** Default bound of a launch's wait for its NIC create, ms (NIC creates take seconds). */
export const DefaultNetworkInterfaceCreateTimeoutMs = 120_000;
/** Default bound of a launch's wait for its VM create, ms (VM creates take one to a few minutes). */
export const DefaultVirtualMachineCreateTimeoutMs = 600_000;

/**
 * Upstream's instance GC grace period, seconds: a VM without a NodeClaim is garbage only once its
 * `timeCreated` is this far in the past (the default of `garbageCollectionGracePeriodSeconds`).
 */
export const DefaultGarbageCollectionGracePeriodSeconds = 300;

/** Resources the garbage collector may delete (names in the node resource group). */
export interface AzureGarbage {
  /** VMs tagged for this cluster whose node claim is gone (older than the grace period), sorted. */
  readonly virtualMachines: readonly string[];
  /**
   * The provider IDs of `virtualMachines`, in the same order (`azure:///subscriptions/<sub>/
   * resourceGroups/<rg lower-cased>/providers/Microsoft.Compute/virtualMachines/<vm>`): what the
   * garbage-collection controller matches Nodes' `spec.providerID` against.
   */
  readonly providerIDs: readonly string[];
  /** NICs tagged for this cluster that belong to neither a VM nor an existing node claim, sorted. */
  readonly networkInterfaces: readonly string[];
}

/**
 * Which garbage one pass looks for (both when omitted): upstream checks VMs every 2 minutes and
 * NICs every 5, as two controllers; the controller runs one pass per kind on those periods.
 */
export interface AzureGarbageKinds {
  /** VMs without a NodeClaim, past the grace period; default true. */
  readonly virtualMachines?: boolean;
  /** NICs attached to no VM and named for no NodeClaim or VM; default true. */
  readonly networkInterfaces?: boolean;
}

function armZone(zoneLabel: string): string | undefined {
  return zoneLabel === REGIONAL_ZONE ? undefined : zoneLabel.slice(zoneLabel.lastIndexOf('-') + 1);
}

/** The Azure provider. */
export class AzureCloudProvider implements CloudProvider {
  readonly name = 'azure';
  readonly #o: AzureCloudProviderOptions;
  readonly #clock: Clock;
  readonly #cache: UnavailableOfferingsCache;
  #catalog: AzureCatalog;
  #skus: ReadonlyMap<string, AzureSku>;
  #skuList: readonly AzureSku[];
  #pricing: AzurePricing | undefined;
  #catalogSeq = -1;
  readonly #deleting = new Map<string, Promise<void>>();
  /** Derived from `dnsServiceIP` as upstream does; always ipv4 (IPv6 is refused above). */
  readonly #nodeIPFamily: NodeIPFamily;

  /**
   * Raises Error naming the option when a required one is empty or `dnsServiceIP` is not an IPv4
   * address (an IPv6 DNS service IP means an IPv6 or dual-stack cluster, unsupported as in AKS's
   * Karpenter).
   */
  constructor(options: AzureCloudProviderOptions) {
    for (const field of [
      'subscriptionId',
      'location',
      'nodeResourceGroup',
      'clusterName',
      'vnetSubnetID',
    ] as const) {
      if (!options[field]) throw new Error(`azure provider: option ${field} is required`);
    }
    const dnsProblem =
      options.dnsServiceIP === undefined ? undefined : dnsServiceIPProblem(options.dnsServiceIP);
    if (dnsProblem) throw new Error(`azure provider: option dnsServiceIP ${dnsProblem}`);
    this.#nodeIPFamily = nodeIPFamily(options.dnsServiceIP);
    this.#o = options;
    this.#clock = options.clock ?? systemClock;
    this.#cache = new UnavailableOfferingsCache({ clock: this.#clock });
    this.#skuList = options.skus ?? allAzureSkus();
    this.#pricing = options.pricing;
    this.#skus = new Map(this.#skuList.map((s) => [s.name, s]));
    this.#catalog = this.#buildCatalog();
  }

  /** The prices instance types are built from; undefined means the shipped static table. */
  get pricing(): AzurePricing | undefined {
    return this.#pricing;
  }

  /** The VM sizes instance types are built from. */
  get skus(): readonly AzureSku[] {
    return this.#skuList;
  }

  /**
   * Replaces the prices and/or the VM sizes (a successful live refresh, see CatalogRefresher) and
   * rebuilds the instance-type cache, so the next `getInstanceTypes` and `create` use them. An
   * omitted field keeps its current value.
   */
  updateCatalog(update: {
    readonly pricing?: AzurePricing;
    readonly skus?: readonly AzureSku[];
  }): void {
    if (update.pricing) this.#pricing = update.pricing;
    if (update.skus) {
      this.#skuList = update.skus;
      this.#skus = new Map(update.skus.map((s) => [s.name, s]));
    }
    this.#catalog = this.#buildCatalog();
  }

  #buildCatalog(): AzureCatalog {
    const options = this.#o;
    return new AzureCatalog({
      skus: this.#skuList,
      nodeResourceGroup: options.nodeResourceGroup,
      ...(this.#pricing ? { pricing: this.#pricing } : {}),
      ...(options.networkPlugin ? { networkPlugin: options.networkPlugin } : {}),
      ...(options.networkPluginMode !== undefined
        ? { networkPluginMode: options.networkPluginMode }
        : {}),
      ...(options.vmMemoryOverheadPercent !== undefined
        ? { vmMemoryOverheadPercent: options.vmMemoryOverheadPercent }
        : {}),
      isUnavailable: (sku, zone, capacityType) => {
        const s = this.#skus.get(sku);
        return this.#cache.isUnavailable({
          sku,
          family: s?.armFamily,
          vCPUs: s?.vCPUs ?? 0,
          zone,
          capacityType,
        });
      },
    });
  }

  /** The unavailable-offerings cache (inspection, tests, and flushing on operator request). */
  get unavailableOfferings(): UnavailableOfferingsCache {
    return this.#cache;
  }

  // ---------------------------------------------------------------------------------------------
  // create

  /**
   * Launches the node claim: picks the cheapest available offering among its instance-type
   * options, creates the NIC then the VM (waiting for both long-running operations), and returns
   * the claim with provider ID, labels, capacity, allocatable, image and NodeClass hash.
   *
   * A capacity or quota error marks the unavailable-offerings cache and, up to
   * `maxLaunchAttempts`, tries the next offering; NIC and VM of a failed attempt are deleted.
   * Idempotent per node claim name: an existing VM for it is returned as is.
   *
   * Raises InsufficientCapacityError (NodeClass missing, no offering left, regional quota),
   * NodeClassNotReadyError, or CreateError (`InvalidNodeClaim`, `NoCompatibleImage`,
   * `LaunchFailed` with ARM's code and message).
   */
  async create(nodeClaim: NodeClaim): Promise<NodeClaim> {
    const name = launchNodeClaimName(nodeClaim);
    const nodeClass = await this.#readyNodeClass(nodeClaim.spec.nodeClassRef.name, name);
    const requests = launchRequests(nodeClaim, name);
    const requirements = Requirements.fromNodeSelectorRequirements(nodeClaim.spec.requirements);
    const vmName = vmNameForNodeClaim(name);

    const existing = await this.#getVm(vmName);
    if (existing && existing.provisioningState !== 'Failed')
      return this.#launchedFromExisting(nodeClaim, existing, nodeClass);

    const tried: OfferingKey[] = [];
    const maxAttempts = this.#o.maxLaunchAttempts ?? 3;
    let lastCause: unknown;
    for (let attempt = 0; attempt < maxAttempts; attempt++) {
      const all = launchCandidates(
        this.#instanceTypes(nodeClass),
        requirements,
        requests,
        this.#o.random,
      );
      const candidates = all.filter(
        (c) => imageForInstanceType(nodeClass, c.instanceType) !== undefined,
      );
      if (all.length > 0 && candidates.length === 0)
        throw new CreateError(
          'NoCompatibleImage',
          `node claim ${name}: no image in AKSNodeClass ${nodeClass.metadata.name} status.images fits any of its instance types`,
        );
      const chosen = candidates[0];
      if (!chosen) break;
      const key = {
        instanceType: chosen.instanceType.name,
        zone: chosen.offering.zone,
        capacityType: chosen.offering.capacityType,
      };
      try {
        return await this.#launch(nodeClaim, nodeClass, chosen, vmName);
      } catch (err) {
        if (err instanceof OperationTimeoutError)
          throw new CreateError('LaunchTimeout', `node claim ${name}: ${err.message}`, {
            cause: err,
          });
        const info = armErrorOf(err);
        if (!info)
          throw new CreateError('LaunchFailed', `node claim ${name}: ${(err as Error).message}`, {
            cause: err,
          });
        const cls = classifyLaunchError(info);
        this.#o.logger?.warn('launch failed', {
          nodeClaim: name,
          instanceType: key.instanceType,
          zone: key.zone,
          capacityType: key.capacityType,
          code: info.code,
          reason: cls.reason,
        });
        if (cls.kind === 'regionalQuota')
          throw new InsufficientCapacityError(
            `node claim ${name}: regional cores quota reached: ${info.message}`,
            { cause: err, offerings: [...tried, key] },
          );
        if (cls.kind === 'other')
          throw new CreateError(
            'LaunchFailed',
            `node claim ${name}: creating VM ${vmName} (${key.instanceType}, ${key.zone}, ${key.capacityType}) failed: ${info.code}: ${info.message}`,
            { cause: err },
          );
        const sku = chosen.instanceType.sku;
        const attempted: AttemptedOffering = {
          sku: sku.name,
          family: sku.armFamily,
          vCPUs: sku.vCPUs,
          zone: key.zone,
          capacityType: key.capacityType as 'on-demand' | 'spot',
        };
        this.#cache.markForError(attempted, cls);
        tried.push(key);
        lastCause = new CreateError(cls.reason, `${info.code}: ${info.message}`, { cause: err });
      }
    }
    throw new InsufficientCapacityError(
      tried.length === 0
        ? `node claim ${name}: no instance type option has an available compatible offering that fits the requests`
        : `node claim ${name}: no capacity after trying ${tried.map((t) => `${t.capacityType} ${t.instanceType} in ${t.zone}`).join(', ')}`,
      { offerings: tried, ...(lastCause ? { cause: lastCause } : {}) },
    );
  }

  async #launch(
    nodeClaim: NodeClaim,
    nodeClass: AKSNodeClass,
    chosen: LaunchCandidate,
    vmName: string,
  ): Promise<NodeClaim> {
    const { instanceType, offering } = chosen;
    const sku = instanceType.sku;
    const name = nodeClaim.metadata.name ?? '';
    const imageID = imageForInstanceType(nodeClass, instanceType) as string;
    const nodePool = nodeClaim.metadata.labels?.[NodePoolLabel] ?? '';
    const tags = launchTags({
      clusterName: this.#o.clusterName,
      nodePool,
      nodeClaim: name,
      ...(nodeClass.spec.tags ? { nodeClassTags: nodeClass.spec.tags } : {}),
      ...(this.#o.additionalTags ? { additionalTags: this.#o.additionalTags } : {}),
    });
    const labels = this.#nodeLabels(nodeClaim, instanceType, chosen);
    const params = instanceTypeParameters(this.#o.location, nodeClass, this.#catalogOptions());
    const customData = bootstrapCustomData({
      clusterName: this.#o.clusterName,
      clusterEndpoint: this.#o.clusterEndpoint,
      bootstrapToken: this.#o.kubeletBootstrapToken,
      labels: Object.fromEntries(Object.entries(labels).filter(([k]) => kubeletMaySet(k))),
      taints: nodeClaim.spec.taints ?? [],
      startupTaints: nodeClaim.spec.startupTaints ?? [],
      maxPods: params.maxPods,
      kubeReserved: {
        cpu: instanceType.overhead.kubeReserved['cpu'] ?? 0,
        memory: instanceType.overhead.kubeReserved['memory'] ?? 0,
      },
      evictionMemoryAvailable: instanceType.overhead.evictionThreshold['memory'] ?? 0,
      ...(this.#o.dnsServiceIP ? { clusterDNS: this.#o.dnsServiceIP } : {}),
      nodeIPFamily: this.#nodeIPFamily,
      imageFamily: params.imageFamily,
    });
    const rg = this.#o.nodeResourceGroup;
    const poll = { updateIntervalInMs: this.#o.pollIntervalMs ?? 3000 };
    const trustedLaunch = nodeClass.spec.security?.trustedLaunch;
    const ultraSSD = Requirements.fromNodeSelectorRequirements(nodeClaim.spec.requirements).get(
      AzureLabels.SKUStorageUltraSSD,
    );
    try {
      // Both waits are bounded: a NIC or VM whose operation never ends (stuck behind the
      // operation of a killed predecessor, say) fails the launch, which is cleaned up and retried.
      const nic = await waitBounded(
        `network interface ${vmName} to be created`,
        this.#nicTimeoutMs,
        async (abortSignal) => {
          const poller = await this.#o.clients.network.networkInterfaces.beginCreateOrUpdate(
            rg,
            vmName,
            networkInterfaceBody({
              name: vmName,
              location: this.#o.location,
              subnetID: nodeClass.spec.vnetSubnetID ?? this.#o.vnetSubnetID,
              acceleratedNetworking: sku.acceleratedNetworking,
              tags,
            }),
            { ...poll, abortSignal },
          );
          return poller.pollUntilDone({ abortSignal });
        },
      );
      const vmBody = virtualMachineBody({
        name: vmName,
        location: this.#o.location,
        sku,
        zone: armZone(offering.zone),
        capacityType: offering.capacityType as 'on-demand' | 'spot',
        nicID: nic.id ?? '',
        imageID,
        osDiskSizeGB: params.osDiskSizeGB,
        customData,
        adminUsername: this.#o.adminUsername ?? 'azureuser',
        sshPublicKey: this.#o.sshPublicKey,
        identities: this.#o.nodeIdentities ?? [],
        tags,
        ...(nodeClass.spec.security?.encryptionAtHost ? { encryptionAtHost: true } : {}),
        ...(trustedLaunch?.vtpm || trustedLaunch?.secureBoot
          ? {
              trustedLaunch: {
                vtpm: trustedLaunch.vtpm ?? false,
                secureBoot: trustedLaunch.secureBoot ?? false,
              },
            }
          : {}),
        ...(ultraSSD !== undefined &&
        !ultraSSD.complement &&
        ultraSSD.valuesList().length === 1 &&
        ultraSSD.has('true')
          ? { ultraSSD: true }
          : {}),
        ...(this.#o.diskEncryptionSetID
          ? { diskEncryptionSetID: this.#o.diskEncryptionSetID }
          : {}),
      });
      const vm = await waitBounded(
        `VM ${vmName} to be created`,
        this.#vmTimeoutMs,
        async (abortSignal) =>
          this.#o.clients.compute.virtualMachines.createOrUpdate(rg, vmName, vmBody, {
            ...poll,
            abortSignal,
          }),
      );
      this.#o.logger?.info('launched VM', {
        nodeClaim: name,
        vm: vmName,
        instanceType: sku.name,
        zone: offering.zone,
        capacityType: offering.capacityType,
      });
      return this.#launched(nodeClaim, nodeClass, instanceType, labels, vm.name ?? vmName, imageID);
    } catch (err) {
      await this.#cleanUpFailedLaunch(vmName);
      throw err;
    }
  }

  /** Deletes what a failed launch left (VM in Failed state, NIC); failures are logged, GC retries. */
  async #cleanUpFailedLaunch(vmName: string): Promise<void> {
    const rg = this.#o.nodeResourceGroup;
    const poll = { updateIntervalInMs: this.#o.pollIntervalMs ?? 3000 };
    try {
      if (await this.#getVm(vmName))
        await waitBounded(`VM ${vmName} to be deleted`, this.#vmTimeoutMs, async (abortSignal) =>
          this.#o.clients.compute.virtualMachines.delete(rg, vmName, {
            ...poll,
            forceDeletion: true,
            abortSignal,
          }),
        );
    } catch (err) {
      this.#o.logger?.warn(
        'cleaning up failed launch: deleting VM failed; garbage collection will retry',
        { vm: vmName, error: (err as Error).message },
      );
    }
    try {
      await waitBounded(
        `network interface ${vmName} to be deleted`,
        this.#nicTimeoutMs,
        async (abortSignal) => {
          const poller = await this.#o.clients.network.networkInterfaces.beginDelete(rg, vmName, {
            ...poll,
            abortSignal,
          });
          return poller.pollUntilDone({ abortSignal });
        },
      );
    } catch (err) {
      if (!isNotFound(err))
        this.#o.logger?.warn(
          'cleaning up failed launch: deleting NIC failed; garbage collection will retry',
          { nic: vmName, error: (err as Error).message },
        );
    }
  }

  get #nicTimeoutMs(): number {
    return this.#o.networkInterfaceCreateTimeoutMs ?? DefaultNetworkInterfaceCreateTimeoutMs;
  }

  get #vmTimeoutMs(): number {
    return this.#o.virtualMachineCreateTimeoutMs ?? DefaultVirtualMachineCreateTimeoutMs;
  }

  #nodeLabels(
    nodeClaim: NodeClaim,
    instanceType: AzureInstanceType,
    chosen: LaunchCandidate,
  ): Record<string, string> {
    const { offering } = chosen;
    const claimReqs = Requirements.fromNodeSelectorRequirements(nodeClaim.spec.requirements);
    const resolved = claimReqs.intersection(instanceType.requirements);
    resolved.add(...offering.requirements.values());
    const labels: Record<string, string> = {};
    for (const r of resolved.values()) {
      const values = r.complement ? [] : r.valuesList();
      if (values.length === 1) labels[r.key] = values[0] as string;
    }
    const spot = offering.capacityType === 'spot';
    const mode = claimReqs.get(AKSLabels.Mode);
    Object.assign(labels, nodeClaim.metadata.labels ?? {}, {
      'node.kubernetes.io/instance-type': instanceType.name,
      'topology.kubernetes.io/region': this.#o.location,
      'topology.kubernetes.io/zone': offering.zone,
      'karpenter.sh/capacity-type': offering.capacityType,
      [AzureLabels.PlacementScope]: offering.zone === REGIONAL_ZONE ? 'regional' : 'zonal',
      [AKSLabels.ScaleSetPriority]: spot ? 'spot' : 'regular',
      [AKSLabels.Priority]: spot ? 'spot' : 'regular',
      [AKSLabels.Mode]:
        mode && !mode.complement && mode.valuesList().length === 1 && mode.has('system')
          ? 'system'
          : 'user',
      [AKSLabels.Cluster]: clusterLabelValue(this.#o.nodeResourceGroup),
      'kubernetes.azure.com/role': 'agent',
    });
    if (this.#o.kubeletIdentityClientID)
      labels[KubeletIdentityLabel] = this.#o.kubeletIdentityClientID;
    return labels;
  }

  #launched(
    nodeClaim: NodeClaim,
    nodeClass: AKSNodeClass,
    it: AzureInstanceType,
    labels: Record<string, string>,
    vmName: string,
    imageID: string,
  ): NodeClaim {
    const out = structuredClone(nodeClaim);
    out.metadata.labels = labels;
    out.metadata.annotations = {
      ...out.metadata.annotations,
      [NodeClassHashAnnotation]: currentNodeClassHash(nodeClass),
      [NodeClassHashVersionAnnotation]: NodeClassHashVersion,
    };
    out.status = {
      ...out.status,
      providerID: providerIDForVm(this.#o.subscriptionId, this.#o.nodeResourceGroup, vmName),
      imageID,
      capacity: formatResourceList(it.capacity),
      allocatable: formatResourceList(it.allocatable()),
    };
    return out;
  }

  #launchedFromExisting(
    nodeClaim: NodeClaim,
    vm: VirtualMachine,
    nodeClass: AKSNodeClass,
  ): NodeClaim {
    const it = this.#instanceTypes(nodeClass).find((t) => t.name === vm.hardwareProfile?.vmSize);
    const view = nodeClaimFromVm(vm, this.#vmInputs(it));
    const out = structuredClone(nodeClaim);
    out.metadata.labels = { ...view.metadata.labels, ...out.metadata.labels };
    out.metadata.annotations = {
      ...out.metadata.annotations,
      [NodeClassHashAnnotation]: currentNodeClassHash(nodeClass),
      [NodeClassHashVersionAnnotation]: NodeClassHashVersion,
    };
    out.status = { ...out.status, ...view.status };
    return out;
  }

  // ---------------------------------------------------------------------------------------------
  // delete, get, list

  /**
   * Deletes the node claim's VM (force deletion, waiting for the operation), then its NIC and its
   * managed OS disk if they outlived it. Raises NodeClaimNotFoundError when the VM is already gone
   * (how the termination controller learns it finished). A VM already Deleting is deleted again
   * and followed to the end. Concurrent deletes of one VM in this process share one operation.
   */
  async delete(nodeClaim: NodeClaim): Promise<void> {
    const providerID = nodeClaim.status?.providerID;
    const parsed = providerID ? parseProviderID(providerID) : undefined;
    const vmName = parsed?.vmName ?? vmNameForNodeClaim(nodeClaim.metadata.name ?? '');
    const running = this.#deleting.get(vmName);
    if (running) return running;
    const p = this.#deleteVm(vmName, providerID || (nodeClaim.metadata.name ?? '')).finally(() =>
      this.#deleting.delete(vmName),
    );
    this.#deleting.set(vmName, p);
    return p;
  }

  async #deleteVm(vmName: string, id: string): Promise<void> {
    const rg = this.#o.nodeResourceGroup;
    const poll = { updateIntervalInMs: this.#o.pollIntervalMs ?? 3000 };
    const vm = await this.#getVm(vmName);
    if (!vm) throw new NodeClaimNotFoundError(id, { message: `VM ${vmName} not found in ${rg}` });
    // A VM already Deleting gets the delete again: ARM accepts it, and following that operation
    // is how a restarted controller learns the end of a delete its killed predecessor started.
    const managedDisk = vm.storageProfile?.osDisk?.managedDisk?.id;
    await this.#o.clients.compute.virtualMachines.delete(rg, vmName, {
      ...poll,
      forceDeletion: true,
    });
    this.#o.logger?.info('deleted VM', { vm: vmName });
    for (const nic of vm.networkProfile?.networkInterfaces ?? []) {
      const nicName = nic.id?.split('/').pop();
      if (!nicName) continue;
      try {
        await this.#o.clients.network.networkInterfaces.beginDeleteAndWait(rg, nicName, poll);
      } catch (err) {
        if (!isNotFound(err))
          this.#o.logger?.warn('deleting NIC failed; garbage collection will retry', {
            nic: nicName,
            error: (err as Error).message,
          });
      }
    }
    if (managedDisk) {
      const diskName = managedDisk.split('/').pop() as string;
      try {
        await this.#o.clients.compute.disks.delete(rg, diskName, poll);
      } catch (err) {
        if (!isNotFound(err))
          this.#o.logger?.warn('deleting OS disk failed', {
            disk: diskName,
            error: (err as Error).message,
          });
      }
    }
  }

  /**
   * The NodeClaim view of a VM by provider ID (labels, provider ID, image; no capacity, which
   * depends on the NodeClass). Raises NodeClaimNotFoundError when absent or not in the node
   * resource group.
   */
  async get(providerID: string): Promise<NodeClaim> {
    const parsed = parseProviderID(providerID);
    if (!parsed || parsed.resourceGroup.toLowerCase() !== this.#o.nodeResourceGroup.toLowerCase())
      throw new NodeClaimNotFoundError(providerID, {
        message: `provider ID ${providerID} is not a VM in ${this.#o.nodeResourceGroup}`,
      });
    const vm = await this.#getVm(parsed.vmName);
    if (!vm) throw new NodeClaimNotFoundError(providerID);
    return nodeClaimFromVm(vm, this.#vmInputs(undefined));
  }

  /** Every VM in the node resource group tagged for this cluster and a NodePool, as NodeClaims. */
  async list(): Promise<NodeClaim[]> {
    const out: NodeClaim[] = [];
    for await (const vm of this.#o.clients.compute.virtualMachines.list(
      this.#o.nodeResourceGroup,
    )) {
      if (!isClusterResource(vm.tags, this.#o.clusterName)) continue;
      out.push(nodeClaimFromVm(vm, this.#vmInputs(undefined)));
    }
    return out;
  }

  // ---------------------------------------------------------------------------------------------
  // garbage collection

  /**
   * What garbage collection should delete (upstream's instance and NIC GC): VMs tagged for this
   * cluster whose node claim is not in `nodeClaimNames` and that are older than the grace period
   * (`garbageCollectionGracePeriodSeconds`, default 300 s, measured from the VM's `timeCreated`;
   * a VM just launched has no NodeClaim status yet), and NICs tagged for this cluster that are
   * attached to no VM and named for no existing node claim or VM — such as the NIC of a launch
   * that crashed between NIC and VM creation. VMs of another cluster (cluster tag) are never
   * listed. `kinds` limits the pass to VMs or to NICs (the other list comes back empty; VMs are
   * listed either way, as a NIC named for a live VM is not garbage). Raises the ARM error of a
   * failed list.
   */
  async listGarbage(
    nodeClaimNames: ReadonlySet<string>,
    kinds: AzureGarbageKinds = {},
  ): Promise<AzureGarbage> {
    const rg = this.#o.nodeResourceGroup;
    const graceMs =
      (this.#o.garbageCollectionGracePeriodSeconds ?? DefaultGarbageCollectionGracePeriodSeconds) *
      1000;
    const now = this.#clock.now();
    const vms: string[] = [];
    const liveVms = new Set<string>();
    for await (const vm of this.#o.clients.compute.virtualMachines.list(rg)) {
      const name = vm.name ?? '';
      liveVms.add(name);
      if (!isClusterResource(vm.tags, this.#o.clusterName)) continue;
      const claim = vm.tags?.[LaunchTags.NodeClaim] ?? nodeClaimNameForVm(name);
      if (claim !== undefined && nodeClaimNames.has(claim)) continue;
      const created = vm.timeCreated?.getTime() ?? 0;
      if (now - created < graceMs) continue;
      if (kinds.virtualMachines !== false) vms.push(name);
    }
    const nics: string[] = [];
    const nicList =
      kinds.networkInterfaces === false ? [] : this.#o.clients.network.networkInterfaces.list(rg);
    for await (const nic of nicList) {
      const name = nic.name ?? '';
      if (!isClusterResource(nic.tags, this.#o.clusterName)) continue;
      if (nic.virtualMachine?.id) continue;
      if (liveVms.has(name)) continue;
      const claim = nic.tags?.[LaunchTags.NodeClaim] ?? nodeClaimNameForVm(name);
      if (claim !== undefined && nodeClaimNames.has(claim)) continue;
      nics.push(name);
    }
    vms.sort();
    return {
      virtualMachines: vms,
      providerIDs: vms.map((vm) => providerIDForVm(this.#o.subscriptionId, rg, vm)),
      networkInterfaces: nics.sort(),
    };
  }

  /**
   * Deletes what {@link listGarbage} finds — each VM (force deletion) with its NIC and OS disk,
   * then the orphan NICs — and returns it. A VM already gone counts as collected; any other ARM
   * error stops the pass and is raised (the next pass retries). Nodes are not touched here: the
   * caller deletes the Nodes of `providerIDs` (it holds the Kubernetes client). `kinds` as for
   * {@link listGarbage}.
   */
  async collectGarbage(
    nodeClaimNames: ReadonlySet<string>,
    kinds: AzureGarbageKinds = {},
  ): Promise<AzureGarbage> {
    const garbage = await this.listGarbage(nodeClaimNames, kinds);
    const poll = { updateIntervalInMs: this.#o.pollIntervalMs ?? 3000 };
    for (const vm of garbage.virtualMachines) {
      try {
        await this.#deleteVm(vm, vm);
      } catch (err) {
        if (!(err instanceof NodeClaimNotFoundError)) throw err;
      }
    }
    for (const nic of garbage.networkInterfaces) {
      await this.#o.clients.network.networkInterfaces.beginDeleteAndWait(
        this.#o.nodeResourceGroup,
        nic,
        poll,
      );
    }
    return garbage;
  }

  // ---------------------------------------------------------------------------------------------
  // instance types, drift, metadata

  /**
   * The AKSNodeClass's instance types for the NodePool, offerings marked unavailable by the
   * unavailable-offerings cache reported `available: false`. Raises NodeClassNotReadyError when
   * the NodeClass is absent (an empty list would hide the error from the scheduler).
   */
  async getInstanceTypes(nodePool: NodePool): Promise<InstanceType[]> {
    const ref = nodePool.spec.template.spec.nodeClassRef;
    const nodeClass = await this.#o.getNodeClass(ref.name);
    if (!nodeClass)
      throw new NodeClassNotReadyError(ref.name, { message: `AKSNodeClass ${ref.name} not found` });
    return [...this.#instanceTypes(nodeClass)];
  }

  /** The drift reason (see drift.ts), or '' when not drifted or the NodeClass is gone. */
  async isDrifted(nodeClaim: NodeClaim): Promise<string> {
    const nodeClass = await this.#o.getNodeClass(nodeClaim.spec.nodeClassRef.name);
    if (!nodeClass) return '';
    const nodeName = nodeClaim.status?.nodeName;
    const node = nodeName && this.#o.getNode ? await this.#o.getNode(nodeName) : undefined;
    return driftReason(nodeClaim, nodeClass, node, this.#o.kubeletIdentityClientID);
  }

  /**
   * Upstream's repair policies: Ready False or Unknown for 10 minutes; AKS's
   * `kubernetes.azure.com/NodeHealthy=False` and a spot eviction notice (`PreemptionScheduled=True`)
   * at once.
   */
  repairPolicies(): readonly RepairPolicy[] {
    return [
      { conditionType: 'Ready', conditionStatus: 'False', tolerationSeconds: 600 },
      { conditionType: 'Ready', conditionStatus: 'Unknown', tolerationSeconds: 600 },
      {
        conditionType: 'kubernetes.azure.com/NodeHealthy',
        conditionStatus: 'False',
        tolerationSeconds: 0,
      },
      { conditionType: 'PreemptionScheduled', conditionStatus: 'True', tolerationSeconds: 0 },
    ];
  }

  getSupportedNodeClasses(): readonly NodeClassKind[] {
    return [{ group: AKSNodeClassGroup, kind: AKSNodeClassKind }];
  }

  // ---------------------------------------------------------------------------------------------

  async #readyNodeClass(name: string, nodeClaimName: string): Promise<AKSNodeClass> {
    const nodeClass = await this.#o.getNodeClass(name);
    if (!nodeClass)
      throw new InsufficientCapacityError(
        `node claim ${nodeClaimName}: AKSNodeClass ${name} not found`,
      );
    const ready = nodeClass.status?.conditions?.find((c) => c.type === 'Ready');
    const generation = nodeClass.metadata.generation;
    if (ready?.status !== 'True')
      throw new NodeClassNotReadyError(name, {
        message: `AKSNodeClass ${name} is not ready${ready?.message ? `: ${ready.message}` : ''}`,
      });
    if (
      generation !== undefined &&
      ready.observedGeneration !== undefined &&
      ready.observedGeneration !== generation
    )
      throw new NodeClassNotReadyError(name, {
        message: `AKSNodeClass ${name} status is for generation ${ready.observedGeneration}, not ${generation}`,
      });
    if (!nodeClass.status?.images?.length)
      throw new NodeClassNotReadyError(name, {
        message: `AKSNodeClass ${name} has no status.images`,
      });
    return nodeClass;
  }

  #catalogOptions() {
    return {
      nodeResourceGroup: this.#o.nodeResourceGroup,
      ...(this.#o.networkPlugin ? { networkPlugin: this.#o.networkPlugin } : {}),
      ...(this.#o.networkPluginMode !== undefined
        ? { networkPluginMode: this.#o.networkPluginMode }
        : {}),
      ...(this.#o.vmMemoryOverheadPercent !== undefined
        ? { vmMemoryOverheadPercent: this.#o.vmMemoryOverheadPercent }
        : {}),
    };
  }

  #instanceTypes(nodeClass: AKSNodeClass): readonly AzureInstanceType[] {
    const seq = this.#cache.seqNum;
    if (seq !== this.#catalogSeq) {
      this.#catalog.invalidate();
      this.#catalogSeq = seq;
    }
    return this.#catalog.instanceTypes(this.#o.location, nodeClass);
  }

  #vmInputs(it: AzureInstanceType | undefined) {
    return {
      subscriptionId: this.#o.subscriptionId,
      resourceGroup: this.#o.nodeResourceGroup,
      region: this.#o.location,
      ...(it ? { instanceType: it } : {}),
    };
  }

  async #getVm(vmName: string): Promise<VirtualMachine | undefined> {
    try {
      return await this.#o.clients.compute.virtualMachines.get(this.#o.nodeResourceGroup, vmName);
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }
}
