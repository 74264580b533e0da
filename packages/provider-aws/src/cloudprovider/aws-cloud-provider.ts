/**
 * The AWS (EC2) cloud provider: launches node claims with one CreateFleet `instant` call over
 * launch templates it keeps per AMI and kubelet settings, reads instances back, terminates them,
 * reports drift, and lists the cluster's instances for garbage collection. Behaviour follows
 * upstream `aws/karpenter-provider-aws` v1.14; the
 * differences are listed in the package README.
 */
import {
  CreateFleetCommand,
  DescribeInstancesCommand,
  paginateDescribeSpotPriceHistory,
  TerminateInstancesCommand,
  paginateDescribeInstances,
  type CreateFleetError,
  type FleetLaunchTemplateConfigRequest,
  type Instance,
} from '@aws-sdk/client-ec2';
import { Taints, type NodeClaim, type NodePool, type Taint } from '@karpenter-ts/api';
import {
  CreateError,
  InsufficientCapacityError,
  NodeClaimNotFoundError,
  NodeClassNotReadyError,
  isOfferingCompatible,
  kubeletMaySet,
  launchNodeClaimName,
  launchRequests,
  systemClock,
  type CloudProvider,
  type Clock,
  type InstanceType,
  type NodeClassKind,
  type Offering,
  type OfferingKey,
  type RepairPolicy,
} from '@karpenter-ts/cloudprovider';
import {
  Requirements,
  WELL_KNOWN_LABELS_ALLOW_UNDEFINED,
  fits,
  formatResourceList,
} from '@karpenter-ts/scheduling';
import { InsufficientCapacityErrorCodes, awsErrorText, isAwsNotFound } from '../aws/errors.js';
import {
  AwsGroup,
  EC2NodeClassKind,
  resolveAMIFamily,
  type BlockDeviceMapping,
  type EC2NodeClass,
} from '../ec2nodeclass.js';
import { getAwsInstanceTypes } from '../instance-types.js';
import { spotPriceKey, type SpotPriceTable } from '../pricing.js';
import { AwsLabels, AwsWellKnownLabels } from '../labels.js';
import {
  clusterLaunchTemplates,
  deleteLaunchTemplate,
  ensureLaunchTemplate,
  type EnsuredLaunchTemplate,
} from '../launch/launch-templates.js';
import { UnavailableOfferings } from '../launch/unavailable-offerings.js';
import { ReservationCapacity } from '../launch/reservation-capacity.js';
import {
  ReservationMarketLaunch,
  reservationIdOf,
  reservedLaunchCandidates,
  type ReservationMarket,
} from '../launch/reserved-launch.js';
import { userDataFor } from '../launch/user-data.js';
import { restrictedTagProblem } from '../nodeclass/status.js';
import {
  AwsTags,
  clusterTagKey,
  instanceIdOf,
  nodeClaimFromInstance,
  providerIDFor,
  tagOf,
} from './instance.js';
import {
  EC2NodeClassHashAnnotation,
  EC2NodeClassHashVersion,
  EC2NodeClassHashVersionAnnotation,
  ec2NodeClassHash,
} from './nodeclass-hash.js';
import type { AwsCloudProviderOptions } from './options.js';

/** Upstream's cap on instance types per CreateFleet call. */
export const MaxInstanceTypes = 60;

const ActiveStates = ['pending', 'running', 'stopping', 'stopped', 'shutting-down'];

/** Keys a node claim may leave undefined when matched against an offering. */
const AllowUndefined: ReadonlySet<string> = new Set([
  ...WELL_KNOWN_LABELS_ALLOW_UNDEFINED,
  ...AwsWellKnownLabels,
]);

/** Labels a NodeClaim carries only when it launched into a capacity reservation. */
const ReservationLabels: ReadonlySet<string> = new Set([
  AwsLabels.CapacityReservationID,
  AwsLabels.CapacityReservationType,
  AwsLabels.CapacityReservationInterruptible,
]);

/** Upstream's default block devices when the NodeClass sets none. */
function defaultBlockDevices(family: string): BlockDeviceMapping[] | undefined {
  if (family === 'AL2023' || family === 'AL2')
    return [
      { deviceName: '/dev/xvda', ebs: { volumeSize: '20Gi', volumeType: 'gp3', encrypted: true } },
    ];
  if (family === 'Bottlerocket')
    return [
      { deviceName: '/dev/xvda', ebs: { volumeSize: '4Gi', volumeType: 'gp3', encrypted: true } },
      { deviceName: '/dev/xvdb', ebs: { volumeSize: '20Gi', volumeType: 'gp3', encrypted: true } },
    ];
  return undefined;
}

interface Candidate {
  readonly it: InstanceType;
  readonly offerings: Offering[];
  readonly imageId: string;
}

/** The capacity type a launch asks CreateFleet for. */
type LaunchCapacityType = 'reserved' | 'spot' | 'on-demand';

/** The AWS provider. */
export class AwsCloudProvider implements CloudProvider {
  readonly name = 'aws';
  readonly #o: AwsCloudProviderOptions;
  readonly #clock: Clock;
  readonly #ice: UnavailableOfferings;
  readonly #reservations = new ReservationCapacity();
  readonly #reservedCapacity: boolean;
  #spotPrices: SpotPriceTable | undefined;

  /** Raises Error naming the option when a required one is empty. */
  constructor(options: AwsCloudProviderOptions) {
    for (const field of ['region', 'clusterName', 'clusterEndpoint'] as const)
      if (!options[field]) throw new Error(`aws provider: option ${field} is required`);
    this.#o = options;
    this.#clock = options.clock ?? systemClock;
    this.#ice = new UnavailableOfferings(this.#clock);
    this.#reservedCapacity = options.reservedCapacity ?? true;
  }

  /**
   * What each capacity reservation can still take (the status controller refreshes it from
   * DescribeCapacityReservations; launches and capacity errors count it down).
   */
  get reservationCapacity(): ReservationCapacity {
    return this.#reservations;
  }

  /** The unavailable-offerings cache (inspection and tests). */
  get unavailableOfferings(): UnavailableOfferings {
    return this.#ice;
  }

  getSupportedNodeClasses(): readonly NodeClassKind[] {
    return [{ group: AwsGroup, kind: EC2NodeClassKind }];
  }

  /** Upstream's node repair policies (reference 4.5). */
  repairPolicies(): readonly RepairPolicy[] {
    const m = 60;
    return [
      { conditionType: 'Ready', conditionStatus: 'False', tolerationSeconds: 30 * m },
      { conditionType: 'Ready', conditionStatus: 'Unknown', tolerationSeconds: 30 * m },
      {
        conditionType: 'AcceleratedHardwareReady',
        conditionStatus: 'False',
        tolerationSeconds: 10 * m,
      },
      { conditionType: 'StorageReady', conditionStatus: 'False', tolerationSeconds: 30 * m },
      { conditionType: 'NetworkingReady', conditionStatus: 'False', tolerationSeconds: 30 * m },
      { conditionType: 'KernelReady', conditionStatus: 'False', tolerationSeconds: 30 * m },
      {
        conditionType: 'ContainerRuntimeReady',
        conditionStatus: 'False',
        tolerationSeconds: 30 * m,
      },
    ];
  }

  /** Live spot prices since the last successful refresh; undefined: the shipped model. */
  get spotPrices(): SpotPriceTable | undefined {
    return this.#spotPrices;
  }

  /**
   * Replaces the spot prices with DescribeSpotPriceHistory's latest price per type and zone
   * (`Linux/UNIX` and `Linux/UNIX (Amazon VPC)`, `StartTime` now, as upstream; reference 4.4).
   * Until the first success the shipped model (0.7 × on-demand) stands; after it a (type, zone)
   * without a price has no available spot offering. A failed refresh raises the SDK's error and
   * keeps the previous prices. Resolves with the number of prices read.
   */
  async refreshSpotPrices(): Promise<number> {
    const prices = new Map<string, { price: number; at: number }>();
    for await (const page of paginateDescribeSpotPriceHistory(
      { client: this.#o.clients.ec2 },
      {
        ProductDescriptions: ['Linux/UNIX', 'Linux/UNIX (Amazon VPC)'],
        StartTime: new Date(this.#clock.now()),
      },
    )) {
      for (const h of page.SpotPriceHistory ?? []) {
        const price = Number(h.SpotPrice);
        if (!h.InstanceType || !h.AvailabilityZone || !(price > 0)) continue;
        const key = spotPriceKey(h.InstanceType, h.AvailabilityZone);
        const at = h.Timestamp?.getTime() ?? 0;
        const kept = prices.get(key);
        if (!kept || at > kept.at) prices.set(key, { price, at });
      }
    }
    this.#spotPrices = new Map([...prices].map(([k, v]) => [k, v.price]));
    return prices.size;
  }

  /**
   * Instance types of the NodePool's EC2NodeClass (none when it is missing or being deleted:
   * upstream treats a deleting NodeClass as not found, so nothing new launches while its
   * termination waits for the NodeClaims it has).
   */
  async getInstanceTypes(nodePool: NodePool): Promise<InstanceType[]> {
    const nodeClass = await this.#o.getNodeClass(nodePool.spec.template.spec.nodeClassRef.name);
    return nodeClass && nodeClass.metadata.deletionTimestamp === undefined
      ? this.#instanceTypes(nodeClass)
      : [];
  }

  #instanceTypes(nodeClass: EC2NodeClass): InstanceType[] {
    return getAwsInstanceTypes({
      region: this.#o.region,
      nodeClass,
      options: {
        ...this.#o.catalog,
        ...(this.#spotPrices ? { spotPrices: this.#spotPrices } : {}),
        unavailableOfferings: this.#ice.list(),
        ...(this.#reservedCapacity
          ? { reservationCapacity: (id: string) => this.#reservations.remaining(id) }
          : {}),
      },
    });
  }

  async #readyNodeClass(name: string, claim: string): Promise<EC2NodeClass> {
    const nodeClass = await this.#o.getNodeClass(name);
    if (!nodeClass)
      throw new InsufficientCapacityError(`node claim ${claim}: EC2NodeClass ${name} not found`);
    if (nodeClass.metadata.deletionTimestamp !== undefined)
      throw new InsufficientCapacityError(
        `node claim ${claim}: EC2NodeClass ${name} is being deleted`,
      );
    const ready = nodeClass.status?.conditions?.find((c) => c.type === 'Ready');
    if (!ready || ready.status === 'Unknown')
      throw new CreateError(
        'NodeClassNotReady',
        `node claim ${claim}: EC2NodeClass ${name} readiness is unknown`,
      );
    if (ready.status !== 'True')
      throw new NodeClassNotReadyError(name, {
        message:
          `EC2NodeClass ${name} is not ready: ${ready.reason ?? ''} ${ready.message ?? ''}`.trim(),
      });
    const generation = nodeClass.metadata.generation;
    if (
      generation !== undefined &&
      ready.observedGeneration !== undefined &&
      ready.observedGeneration !== generation
    )
      throw new NodeClassNotReadyError(name, {
        message: `EC2NodeClass ${name} readiness is for generation ${ready.observedGeneration}, not ${generation}`,
      });
    return nodeClass;
  }

  // ---------------------------------------------------------------------------------------------
  // create

  /**
   * Launches the node claim with one CreateFleet `instant` call (reference 4.2): the claim's
   * compatible instance types with an available offering that fit its requests, cheapest first,
   * at most 60; spot when the claim allows it and a spot offering is available, else on-demand;
   * per zone the NodeClass subnet with the most free IPs; one launch template per distinct
   * (AMI, max pods, kube-reserved); overrides per type and zone priced by the offering
   * (`lowest-price` on-demand, `price-capacity-optimized` spot). Capacity errors mark the
   * unavailable-offerings cache for 3 minutes. Launch templates this call created that the
   * launched instance does not use are deleted, so a failed launch leaves nothing behind.
   * Idempotent per node claim name: an instance already tagged for it is returned.
   *
   * Raises InsufficientCapacityError (NodeClass missing or being deleted, nothing launchable, every override out
   * of capacity), NodeClassNotReadyError, or CreateError (`InvalidNodeClaim`, `NodeClassNotReady`
   * for unknown readiness, `TagValidationFailed`, `NoCompatibleAMI`, `LaunchFailed` with EC2's code).
   */
  async create(nodeClaim: NodeClaim): Promise<NodeClaim> {
    const name = launchNodeClaimName(nodeClaim);
    const nodeClass = await this.#readyNodeClass(nodeClaim.spec.nodeClassRef.name, name);
    const tagProblem = restrictedTagProblem(nodeClass.spec.tags);
    if (tagProblem)
      throw new CreateError('TagValidationFailed', `node claim ${name}: ${tagProblem}`);
    const requests = launchRequests(nodeClaim, name);
    const requirements = Requirements.fromNodeSelectorRequirements(nodeClaim.spec.requirements);

    const existing = await this.#instanceForNodeClaim(name);
    if (existing) return this.#launched(nodeClaim, nodeClass, existing);

    const { candidates, capacityType, market } = this.#candidates(
      nodeClass,
      requirements,
      requests,
      name,
    );
    const subnetByZone = new Map<string, string>();
    for (const s of nodeClass.status?.subnets ?? [])
      if (!subnetByZone.has(s.zone)) subnetByZone.set(s.zone, s.id);

    const nodePool = nodeClaim.metadata.labels?.['karpenter.sh/nodepool'] ?? '';
    const tags: Record<string, string> = {
      ...(nodeClass.spec.tags ?? {}),
      [clusterTagKey(this.#o.clusterName)]: 'owned',
      [AwsTags.NodePool]: nodePool,
      [AwsTags.ClusterName]: this.#o.clusterName,
      [AwsTags.EC2NodeClass]: nodeClass.metadata.name ?? '',
    };
    const instanceTags = { ...tags, [AwsTags.NodeClaim]: name };
    const ltTags = {
      ...(nodeClass.spec.tags ?? {}),
      [clusterTagKey(this.#o.clusterName)]: 'owned',
      [AwsTags.ClusterName]: this.#o.clusterName,
      [AwsTags.EC2NodeClass]: nodeClass.metadata.name ?? '',
    };

    const blockDevices =
      nodeClass.spec.blockDeviceMappings ?? defaultBlockDevices(resolveAMIFamily(nodeClass.spec));
    const templates: EnsuredLaunchTemplate[] = [];
    let launchedTemplate: string | undefined;
    try {
      const configs: FleetLaunchTemplateConfigRequest[] = [];
      // One template per (AMI, max pods, kube-reserved), and per reservation for a reserved
      // launch: the template is what targets the reservation.
      const groups = new Map<string, { c: Candidate; o: Offering }[]>();
      for (const c of candidates)
        for (const o of c.offerings) {
          const key = JSON.stringify([
            c.imageId,
            c.it.capacity['pods'],
            c.it.overhead.kubeReserved,
            reservationIdOf(o) ?? null,
          ]);
          groups.set(key, [...(groups.get(key) ?? []), { c, o }]);
        }
      const reservationOfTemplate = new Map<string, string>();
      for (const group of groups.values()) {
        const first = (group[0] as { c: Candidate; o: Offering }).c;
        const reservationId =
          capacityType === 'reserved' ? reservationIdOf(group[0]!.o) : undefined;
        const lt = await ensureLaunchTemplate(this.#o.clients.ec2, {
          imageId: first.imageId,
          userData: this.#userData(nodeClaim, nodeClass, first.it),
          securityGroupIds: (nodeClass.status?.securityGroups ?? []).map((g) => g.id),
          instanceProfile: nodeClass.status?.instanceProfile ?? '',
          ...(blockDevices ? { blockDeviceMappings: blockDevices } : {}),
          ...(nodeClass.spec.metadataOptions
            ? { metadataOptions: nodeClass.spec.metadataOptions }
            : {}),
          ...(nodeClass.spec.detailedMonitoring !== undefined
            ? { detailedMonitoring: nodeClass.spec.detailedMonitoring }
            : {}),
          ...(nodeClass.spec.associatePublicIPAddress !== undefined
            ? { associatePublicIPAddress: nodeClass.spec.associatePublicIPAddress }
            : {}),
          tags: ltTags,
          ...(reservationId !== undefined
            ? {
                capacityReservation: {
                  id: reservationId,
                  ...ReservationMarketLaunch[market ?? 'default'].templateMarket,
                },
              }
            : this.#reservedCapacity
              ? { capacityReservation: 'none' as const }
              : {}),
        });
        templates.push(lt);
        if (reservationId !== undefined) reservationOfTemplate.set(lt.name, reservationId);
        configs.push({
          LaunchTemplateSpecification: { LaunchTemplateName: lt.name, Version: '$Latest' },
          Overrides: group.map(({ c, o }) => ({
            InstanceType: c.it.name as never,
            SubnetId: subnetByZone.get(o.zone),
            AvailabilityZone: o.zone,
            ImageId: c.imageId,
            Priority: o.price,
          })),
        });
      }
      const target =
        capacityType !== 'reserved'
          ? capacityType
          : ReservationMarketLaunch[market ?? 'default'].fleetTarget;
      const tagSpec = (
        ResourceType: 'instance' | 'volume' | 'fleet',
        t: Record<string, string>,
      ) => ({
        ResourceType,
        Tags: Object.entries(t).map(([Key, Value]) => ({ Key, Value })),
      });
      const out = await this.#o.clients.ec2.send(
        new CreateFleetCommand({
          Type: 'instant',
          TargetCapacitySpecification: {
            TotalTargetCapacity: 1,
            DefaultTargetCapacityType: target,
          },
          ...(target === 'spot'
            ? { SpotOptions: { AllocationStrategy: 'price-capacity-optimized' } }
            : target === 'on-demand'
              ? { OnDemandOptions: { AllocationStrategy: 'lowest-price' } }
              : target === 'reserved-capacity'
                ? {
                    ReservedCapacityOptions: {
                      ReservationTypes: ['interruptible-capacity-reservation'],
                    },
                  }
                : {}),
          ...(nodeClass.spec.context ? { Context: nodeClass.spec.context } : {}),
          LaunchTemplateConfigs: configs,
          TagSpecifications: [
            tagSpec('instance', instanceTags),
            tagSpec('volume', instanceTags),
            tagSpec('fleet', tags),
          ],
        }),
      );
      const tried = this.#markCapacityErrors(out.Errors ?? [], capacityType, reservationOfTemplate);
      const instanceId = out.Instances?.[0]?.InstanceIds?.[0];
      if (!instanceId) {
        const other = (out.Errors ?? []).find(
          (e) => !InsufficientCapacityErrorCodes.has(e.ErrorCode ?? ''),
        );
        if (other)
          throw new CreateError(
            'LaunchFailed',
            `node claim ${name}: CreateFleet: ${other.ErrorCode}: ${other.ErrorMessage}`,
          );
        throw new InsufficientCapacityError(
          `node claim ${name}: no capacity: ${(out.Errors ?? []).map((e) => `${e.ErrorCode} for ${e.LaunchTemplateAndOverrides?.Overrides?.InstanceType} in ${e.LaunchTemplateAndOverrides?.Overrides?.AvailabilityZone}`).join('; ')}`,
          { offerings: tried },
        );
      }
      launchedTemplate =
        out.Instances?.[0]?.LaunchTemplateAndOverrides?.LaunchTemplateSpecification
          ?.LaunchTemplateName;
      const launchedReservation = reservationOfTemplate.get(launchedTemplate ?? '');
      // Counted until the next DescribeCapacityReservations, as upstream's provider does.
      if (launchedReservation !== undefined) this.#reservations.markLaunched(launchedReservation);
      const instance = await this.#describe(instanceId);
      if (!instance)
        throw new CreateError(
          'LaunchFailed',
          `node claim ${name}: instance ${instanceId} vanished after launch`,
        );
      this.#o.logger?.info('launched instance', {
        nodeClaim: name,
        instance: instanceId,
        instanceType: instance.InstanceType,
        zone: instance.Placement?.AvailabilityZone,
        capacityType,
        ...(launchedReservation !== undefined ? { capacityReservation: launchedReservation } : {}),
      });
      return this.#launched(nodeClaim, nodeClass, instance, launchedReservation);
    } catch (err) {
      if (err instanceof InsufficientCapacityError || err instanceof CreateError) throw err;
      throw new CreateError('LaunchFailed', `node claim ${name}: ${awsErrorText(err)}`, {
        cause: err,
      });
    } finally {
      for (const lt of templates)
        if (lt.created && lt.name !== launchedTemplate)
          await deleteLaunchTemplate(this.#o.clients.ec2, lt.name).catch((err: unknown) =>
            this.#o.logger?.warn(
              'deleting an unused launch template failed; garbage collection will retry',
              {
                launchTemplate: lt.name,
                error: awsErrorText(err),
              },
            ),
          );
    }
  }

  #candidates(
    nodeClass: EC2NodeClass,
    requirements: Requirements,
    requests: ReturnType<typeof launchRequests>,
    name: string,
  ): { candidates: Candidate[]; capacityType: LaunchCapacityType; market?: ReservationMarket } {
    const subnetZones = new Set((nodeClass.status?.subnets ?? []).map((s) => s.zone));
    const amis = (nodeClass.status?.amis ?? []).map((a) => ({
      id: a.id,
      requirements: Requirements.fromNodeSelectorRequirements(a.requirements as never),
    }));
    const all: { it: InstanceType; offerings: Offering[] }[] = [];
    let anyAMI = false;
    const withAMI: Candidate[] = [];
    for (const it of this.#instanceTypes(nodeClass)) {
      if (!requirements.isIntersecting(it.requirements)) continue;
      if (!fits(requests, it.allocatable())) continue;
      const offerings = it.offerings.filter(
        (o) =>
          o.available &&
          subnetZones.has(o.zone) &&
          isOfferingCompatible(o, requirements, AllowUndefined),
      );
      if (offerings.length === 0) continue;
      all.push({ it, offerings });
      const ami = amis.find((a) => it.requirements.isCompatible(a.requirements, AllowUndefined));
      if (!ami) continue;
      anyAMI = true;
      withAMI.push({ it, offerings, imageId: ami.id });
    }
    if (all.length > 0 && !anyAMI)
      throw new CreateError(
        'NoCompatibleAMI',
        `node claim ${name}: no AMI in EC2NodeClass ${nodeClass.metadata.name} status.amis fits any of its instance types`,
      );
    // Reserved when the claim allows it and a reservation has room, else spot, else on-demand.
    const has = (t: LaunchCapacityType) =>
      withAMI.some((c) => c.offerings.some((o) => o.capacityType === t));
    const capacityType: LaunchCapacityType = has('reserved')
      ? 'reserved'
      : has('spot')
        ? 'spot'
        : 'on-demand';
    let ofType = withAMI
      .map((c) => ({ ...c, offerings: c.offerings.filter((o) => o.capacityType === capacityType) }))
      .filter((c) => c.offerings.length > 0);
    let market: ReservationMarket | undefined;
    if (capacityType === 'reserved')
      ({ candidates: ofType, market } = reservedLaunchCandidates(ofType));
    const candidates = ofType
      .sort(
        (a, b) =>
          Math.min(...a.offerings.map((o) => o.price)) -
            Math.min(...b.offerings.map((o) => o.price)) || a.it.name.localeCompare(b.it.name),
      )
      .slice(0, MaxInstanceTypes);
    if (candidates.length === 0)
      throw new InsufficientCapacityError(
        `node claim ${name}: no instance type option has an available compatible offering in the NodeClass's subnet zones that fits the requests`,
      );
    return { candidates, capacityType, ...(market ? { market } : {}) };
  }

  #userData(nodeClaim: NodeClaim, nodeClass: EC2NodeClass, it: InstanceType): string {
    const labels: Record<string, string> = {
      ...Object.fromEntries(
        Object.entries(nodeClaim.metadata.labels ?? {}).filter(([k]) => kubeletMaySet(k)),
      ),
      [AwsLabels.EC2NodeClass]: nodeClass.metadata.name ?? '',
    };
    // Upstream registers every node with karpenter.sh/unregistered until the node claim's
    // registration removes it, so no pod lands before labels and taints are synced.
    const all: Taint[] = [
      Taints.Unregistered,
      ...(nodeClaim.spec.taints ?? []),
      ...(nodeClaim.spec.startupTaints ?? []),
    ];
    const taints = all.map((t) => ({
      key: t.key,
      ...(t.value !== undefined ? { value: t.value } : {}),
      effect: t.effect,
    }));
    const dns = nodeClass.spec.kubelet?.clusterDNS ?? this.#o.clusterDNS;
    return userDataFor(resolveAMIFamily(nodeClass.spec), {
      clusterName: this.#o.clusterName,
      clusterEndpoint: this.#o.clusterEndpoint,
      ...(this.#o.clusterCABundle ? { caBundle: this.#o.clusterCABundle } : {}),
      ...(dns ? { clusterDNS: dns } : {}),
      maxPods: it.capacity['pods'] ?? 110,
      labels,
      taints,
      kubeReserved: it.overhead.kubeReserved,
      ...(nodeClass.spec.userData ? { customUserData: nodeClass.spec.userData } : {}),
    });
  }

  /**
   * Marks what answered with a capacity error: the offering `<capacityType>:<type>:<zone>` in
   * the unavailable-offerings cache, or for a reserved launch the reservation its template
   * targeted (until the next refresh), leaving the type's on-demand and spot offerings alone.
   */
  #markCapacityErrors(
    errors: readonly CreateFleetError[],
    capacityType: LaunchCapacityType,
    reservationOfTemplate: ReadonlyMap<string, string>,
  ): OfferingKey[] {
    const out: OfferingKey[] = [];
    for (const e of errors) {
      if (!InsufficientCapacityErrorCodes.has(e.ErrorCode ?? '')) continue;
      const o = e.LaunchTemplateAndOverrides?.Overrides;
      const key = {
        instanceType: o?.InstanceType ?? '',
        zone: o?.AvailabilityZone ?? '',
        capacityType,
      };
      const reservation = reservationOfTemplate.get(
        e.LaunchTemplateAndOverrides?.LaunchTemplateSpecification?.LaunchTemplateName ?? '',
      );
      if (reservation !== undefined) this.#reservations.markUnavailable(reservation);
      else this.#ice.mark(key);
      out.push(key);
    }
    return out;
  }

  #launched(
    nodeClaim: NodeClaim,
    nodeClass: EC2NodeClass,
    instance: Instance,
    launchedReservation?: string,
  ): NodeClaim {
    const it = this.#instanceTypes(nodeClass).find((t) => t.name === instance.InstanceType);
    const zone = instance.Placement?.AvailabilityZone ?? '';
    const reservationId = this.#reservedCapacity
      ? (instance.CapacityReservationId ?? launchedReservation)
      : undefined;
    const capacityType =
      reservationId !== undefined
        ? 'reserved'
        : instance.InstanceLifecycle === 'spot'
          ? 'spot'
          : 'on-demand';
    const labels: Record<string, string> = {};
    if (it) {
      const resolved = Requirements.fromNodeSelectorRequirements(
        nodeClaim.spec.requirements,
      ).intersection(it.requirements);
      for (const r of resolved.values()) {
        if (ReservationLabels.has(r.key)) continue;
        const values = r.complement ? [] : r.valuesList();
        if (values.length === 1) labels[r.key] = values[0] as string;
      }
    }
    // The reservation labels only on a claim that launched into one (upstream).
    const reservation = nodeClass.status?.capacityReservations?.find((c) => c.id === reservationId);
    if (reservationId !== undefined) {
      labels[AwsLabels.CapacityReservationID] = reservationId;
      labels[AwsLabels.CapacityReservationType] = reservation?.reservationType ?? 'default';
      labels[AwsLabels.CapacityReservationInterruptible] = String(
        reservation?.interruptible ?? false,
      );
    }
    const zoneID = nodeClass.status?.subnets?.find((s) => s.zone === zone)?.zoneID;
    Object.assign(labels, nodeClaim.metadata.labels ?? {}, {
      'node.kubernetes.io/instance-type': instance.InstanceType ?? '',
      'topology.kubernetes.io/region': this.#o.region,
      'topology.kubernetes.io/zone': zone,
      'karpenter.sh/capacity-type': capacityType,
      [AwsLabels.InstanceTenancy]: instance.Placement?.Tenancy ?? 'default',
      ...(zoneID ? { [AwsLabels.TopologyZoneID]: zoneID } : {}),
    });
    const out = structuredClone(nodeClaim);
    out.metadata.labels = labels;
    out.metadata.annotations = {
      ...out.metadata.annotations,
      [EC2NodeClassHashAnnotation]: ec2NodeClassHash(nodeClass),
      [EC2NodeClassHashVersionAnnotation]: EC2NodeClassHashVersion,
      'karpenter.k8s.aws/instance-profile-name': nodeClass.status?.instanceProfile ?? '',
    };
    out.status = {
      ...out.status,
      providerID: providerIDFor(zone, instance.InstanceId ?? ''),
      ...(instance.ImageId ? { imageID: instance.ImageId } : {}),
      ...(it
        ? {
            capacity: formatResourceList(it.capacity),
            allocatable: formatResourceList(it.allocatable()),
          }
        : {}),
    };
    return out;
  }

  async #instanceForNodeClaim(name: string): Promise<Instance | undefined> {
    const out = await this.#o.clients.ec2.send(
      new DescribeInstancesCommand({
        Filters: [
          { Name: `tag:${AwsTags.NodeClaim}`, Values: [name] },
          { Name: `tag:${AwsTags.ClusterName}`, Values: [this.#o.clusterName] },
          { Name: 'instance-state-name', Values: ['pending', 'running'] },
        ],
      }),
    );
    return out.Reservations?.flatMap((r) => r.Instances ?? [])[0];
  }

  async #describe(instanceId: string): Promise<Instance | undefined> {
    try {
      const out = await this.#o.clients.ec2.send(
        new DescribeInstancesCommand({ InstanceIds: [instanceId] }),
      );
      return out.Reservations?.flatMap((r) => r.Instances ?? [])[0];
    } catch (err) {
      if (isAwsNotFound(err)) return undefined;
      throw err;
    }
  }

  // ---------------------------------------------------------------------------------------------
  // delete, get, list

  /**
   * Terminates the node claim's instance. Raises NodeClaimNotFoundError once it is gone
   * (unknown, or shutting-down or terminated: TerminateInstances is skipped then, as upstream).
   */
  async delete(nodeClaim: NodeClaim): Promise<void> {
    const providerID = nodeClaim.status?.providerID ?? '';
    const id = instanceIdOf(providerID);
    if (!id) throw new NodeClaimNotFoundError(nodeClaim.metadata.name ?? providerID);
    const instance = await this.#describe(id);
    const state = instance?.State?.Name;
    if (!instance || state === 'shutting-down' || state === 'terminated')
      throw new NodeClaimNotFoundError(providerID, { message: `instance ${id} is gone` });
    await this.#o.clients.ec2.send(new TerminateInstancesCommand({ InstanceIds: [id] }));
  }

  /** The instance as a NodeClaim; raises NodeClaimNotFoundError when unknown or terminated. */
  async get(providerID: string): Promise<NodeClaim> {
    const id = instanceIdOf(providerID);
    const instance = id ? await this.#describe(id) : undefined;
    if (!instance || instance.State?.Name === 'terminated')
      throw new NodeClaimNotFoundError(providerID);
    return nodeClaimFromInstance(instance, this.#o.region);
  }

  /**
   * The cluster's instances Karpenter launched (tag keys `karpenter.sh/nodepool` and
   * `karpenter.k8s.aws/ec2nodeclass`, `eks:eks-cluster-name=<cluster>`; states pending to
   * shutting-down), as NodeClaims named by their `karpenter.sh/nodeclaim` tag, created at their
   * launch time: what garbage collection compares with the cluster's NodeClaims.
   */
  async list(): Promise<NodeClaim[]> {
    const out: NodeClaim[] = [];
    for await (const page of paginateDescribeInstances(
      { client: this.#o.clients.ec2 },
      {
        Filters: [
          { Name: 'tag-key', Values: [AwsTags.NodePool] },
          { Name: 'tag-key', Values: [AwsTags.EC2NodeClass] },
          { Name: `tag:${AwsTags.ClusterName}`, Values: [this.#o.clusterName] },
          { Name: 'instance-state-name', Values: ActiveStates },
        ],
      },
    ))
      for (const r of page.Reservations ?? [])
        for (const i of r.Instances ?? []) out.push(nodeClaimFromInstance(i, this.#o.region));
    return out;
  }

  /**
   * Deletes the cluster's launch templates that no active instance was launched from (the
   * effect of upstream's launch template cache expiry), keeping those created in the last
   * `graceSeconds` (default 60, upstream's cache TTL) so a launch in flight keeps its template.
   * Returns the names deleted.
   */
  async garbageCollectLaunchTemplates(graceSeconds = 60): Promise<string[]> {
    const inUse = new Set<string>();
    for await (const page of paginateDescribeInstances(
      { client: this.#o.clients.ec2 },
      {
        Filters: [
          { Name: `tag:${AwsTags.ClusterName}`, Values: [this.#o.clusterName] },
          { Name: 'instance-state-name', Values: ActiveStates },
        ],
      },
    ))
      for (const r of page.Reservations ?? [])
        for (const i of r.Instances ?? []) {
          const id = tagOf(i, 'aws:ec2launchtemplate:id');
          if (id) inUse.add(id);
        }
    const deleted: string[] = [];
    const cutoff = this.#clock.now() - graceSeconds * 1000;
    for (const lt of await clusterLaunchTemplates(this.#o.clients.ec2, this.#o.clusterName)) {
      if (inUse.has(lt.LaunchTemplateId ?? '')) continue;
      if ((lt.CreateTime?.getTime() ?? 0) > cutoff) continue;
      await deleteLaunchTemplate(this.#o.clients.ec2, lt.LaunchTemplateName ?? '');
      deleted.push(lt.LaunchTemplateName ?? '');
    }
    return deleted;
  }

  // ---------------------------------------------------------------------------------------------
  // drift

  /**
   * The first drift reason (reference 5): `NodeClassDrift` (hash annotation differs, same hash
   * version), `AMIDrift` (image not in `status.amis`), `SecurityGroupDrift` (the instance's
   * groups differ from `status.securityGroups`), `SubnetDrift` (its subnet is not in
   * `status.subnets`); '' when none, or when the NodeClass or instance is gone.
   */
  async isDrifted(nodeClaim: NodeClaim): Promise<string> {
    const nodeClass = await this.#o.getNodeClass(nodeClaim.spec.nodeClassRef.name);
    if (!nodeClass) return '';
    const ann = nodeClaim.metadata.annotations ?? {};
    if (
      ann[EC2NodeClassHashVersionAnnotation] === EC2NodeClassHashVersion &&
      ann[EC2NodeClassHashAnnotation] !== undefined &&
      ann[EC2NodeClassHashAnnotation] !== ec2NodeClassHash(nodeClass)
    )
      return 'NodeClassDrift';
    const imageID = nodeClaim.status?.imageID;
    if (imageID && nodeClass.status?.amis && !nodeClass.status.amis.some((a) => a.id === imageID))
      return 'AMIDrift';
    const id = instanceIdOf(nodeClaim.status?.providerID ?? '');
    const instance = id ? await this.#describe(id) : undefined;
    if (!instance) return '';
    const want = new Set((nodeClass.status?.securityGroups ?? []).map((g) => g.id));
    const have = new Set((instance.SecurityGroups ?? []).map((g) => g.GroupId ?? ''));
    if (
      nodeClass.status?.securityGroups &&
      (want.size !== have.size || [...want].some((g) => !have.has(g)))
    )
      return 'SecurityGroupDrift';
    if (
      nodeClass.status?.subnets &&
      !nodeClass.status.subnets.some((s) => s.id === instance.SubnetId)
    )
      return 'SubnetDrift';
    // The instance's own reservation (the claim's label when EC2 does not say), as upstream.
    const reservationId =
      instance.CapacityReservationId ??
      nodeClaim.metadata.labels?.[AwsLabels.CapacityReservationID];
    if (
      this.#reservedCapacity &&
      reservationId !== undefined &&
      !(nodeClass.status?.capacityReservations ?? []).some((r) => r.id === reservationId)
    )
      return 'CapacityReservationDrift';
    return '';
  }
}
