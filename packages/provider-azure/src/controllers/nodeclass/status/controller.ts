/**
 * The AKSNodeClass status controller, after upstream `Azure/karpenter-provider-azure`'s
 * `pkg/controllers/nodeclass/status` (at its August 2026 main): one reconciler per AKSNodeClass
 * (`karpenter.azure.com/v1beta1`, cluster-scoped) writing its `status`:
 *
 * - `KubernetesVersionReady`: `status.kubernetesVersion` is the API server's version (no `v`). It
 *   only moves forward; an upgrade sets `ImagesReady` False (`KubernetesUpgrade`) so images are
 *   refreshed for the new version.
 * - `ImagesReady`: `status.images` from the node image resolver (community gallery, newest
 *   version per image definition of the resolved family; images/node-image-resolver.ts). While
 *   `ImagesReady` is True and the maintenance window is closed, each definition keeps the version
 *   it has and only new definitions are added; otherwise (not True, or window open) every
 *   definition moves to its newest version. No images: False with `ImagesNotFound`; FIPS: False
 *   with `SIGRequiredForFIPS` (shared image gallery only).
 * - `SubnetsReady`: the effective subnet (`spec.vnetSubnetID`, else `--vnet-subnet-id`) passes
 *   {@link checkSubnetReadiness}: a subnet ARM ID (`SubnetIDInvalid`), a custom
 *   one in the cluster subnet's VNet and not in the AKS-managed VNet (`SubnetIDInvalid`), and
 *   existing in ARM (`SubnetNotFound`; other ARM failures `SubnetUnknownError`, checked again a
 *   minute later).
 * - `ValidationSucceeded`: the operator's OS disk encryption set (`NODE_OSDISK_DISKENCRYPTIONSET_ID`)
 *   passes {@link validateDiskEncryptionSet}: the controller's identity can read
 *   it (a GET; 403 is upstream's `DiskEncryptionSetRBACMissing`, 404 `DiskEncryptionSetNotFound`,
 *   other failures `DiskEncryptionSetUnknownError`, each checked again a minute later). Without a
 *   set it is True with reason `NoDiskEncryptionSet` (nothing to validate).
 * - `LocalDNSReady`: `status.localDNSState` resolved from `spec.localDNS.mode`
 *   ({@link resolveLocalDNSState}: Preferred is Disabled, with a reason, unless already Enabled);
 *   always True.
 * - `Ready`: True when all five are True, else the first failing one's status, reason and message
 *   (in the order above). Create refuses a NodeClass whose `Ready` is not True (NodeClassNotReady).
 *
 * Every condition carries `observedGeneration`. The whole status is reconciled every 3 minutes
 * (upstream's subnet period; images and the version are cheap to re-check as the resolver caches
 * gallery listings for 3 days and the Kubernetes version is reused 15 minutes through
 * {@link cachedKubernetesVersion}).
 */
import {
  setNodeClassCondition,
  writeNodeClassStatus,
  type Clock,
  type KubeClient,
  type NodeClassConditionUpdate,
  type NodeClassObject,
  type ReconcileResult,
} from '@karpenter-ts/controllers';
import { compareKubernetesVersions } from '../../../images/kubernetes-version.js';
import {
  NodeImageResolver,
  NodeImagesError,
  keepExistingVersions,
  type NodeImage,
  type NodeImageResolverOptions,
} from '../../../images/node-image-resolver.js';
import {
  validateDiskEncryptionSet,
  type DiskEncryptionSetValidation,
  type DiskEncryptionSetValidationOptions,
} from '../../../nodeclass/disk-encryption-set.js';
import { resolveLocalDNSState } from '../../../nodeclass/local-dns-state.js';
import {
  checkSubnetReadiness,
  type SubnetReadiness,
  type SubnetReadinessOptions,
} from '../../../nodeclass/subnet-readiness.js';
import {
  AKSNodeClassGroup,
  AKSNodeClassKind,
  type AKSNodeClass,
  type AKSNodeClassCondition,
  type AKSNodeClassStatus,
} from '../../../nodeclass/types.js';
import type { KubeApiGet } from '../../api-get.js';
import { apiServerVersion, cachedKubernetesVersion } from './kubernetes-version.js';
import { maintenanceWindowOpen, readMaintenanceWindow } from './maintenance-window.js';

/** Condition types the controller writes. */
export const AKSNodeClassConditions = {
  KubernetesVersionReady: 'KubernetesVersionReady',
  ImagesReady: 'ImagesReady',
  SubnetsReady: 'SubnetsReady',
  ValidationSucceeded: 'ValidationSucceeded',
  LocalDNSReady: 'LocalDNSReady',
  Ready: 'Ready',
} as const;

/** The conditions `Ready` is the AND of, in the order the first failing one is reported. */
const ReadyDependents = [
  AKSNodeClassConditions.KubernetesVersionReady,
  AKSNodeClassConditions.ImagesReady,
  AKSNodeClassConditions.SubnetsReady,
  AKSNodeClassConditions.ValidationSucceeded,
  AKSNodeClassConditions.LocalDNSReady,
] as const;

/** Seconds between status passes (upstream's subnet period, the shortest of its checks: 3 minutes). */
export const StatusRequeueSeconds = 180;
/** Seconds before a subnet check that failed with `SubnetUnknownError` is tried again. */
export const SubnetRetrySeconds = 60;
/** Seconds before a `ValidationSucceeded` that is False is checked again (upstream's 1 minute). */
export const ValidationRetrySeconds = 60;

/** What {@link reconcileAKSNodeClass} needs. */
export interface AKSNodeClassStatusContext {
  readonly client: KubeClient;
  readonly clock: Clock;
  /** The API server's version without `v` (`1.36.3`), e.g. {@link cachedKubernetesVersion}. */
  kubernetesVersion(): Promise<string>;
  /** Node images of a spec at a Kubernetes version (a provider-azure `NodeImageResolver`). */
  readonly images: {
    list(spec: AKSNodeClass['spec'], kubernetesVersion: string): Promise<NodeImage[]>;
  };
  /** `SubnetsReady` of a spec (provider-azure's `checkSubnetReadiness`); never raises. */
  subnets(spec: AKSNodeClass['spec']): Promise<SubnetReadiness>;
  /** `ValidationSucceeded` (provider-azure's `validateDiskEncryptionSet`); never raises. */
  diskEncryptionSet(): Promise<DiskEncryptionSetValidation>;
  /**
   * The `data` of the maintenance window ConfigMap, undefined when there is none
   * (see maintenance-window.ts).
   */
  maintenanceWindow(): Promise<Readonly<Record<string, string>> | undefined>;
}

/**
 * Reconciles the named AKSNodeClass's status (see the module comment) and writes it when it
 * changed. Returns requeue after 3 minutes, 1 minute after a `SubnetUnknownError` or while
 * `ValidationSucceeded` is False; 1 s after a
 * write conflict; `{}` when the NodeClass is missing or deleting. Raises what cannot be decided now (the API server's version unreadable,
 * a gallery listing that failed, an unreadable maintenance window), after writing what could be:
 * the work queue retries with backoff, and the images and `ImagesReady` stay as they were.
 */
export async function reconcileAKSNodeClass(
  ctx: AKSNodeClassStatusContext,
  name: string,
): Promise<ReconcileResult> {
  const { client, clock } = ctx;
  const current = await client.get('NodeClass', {
    name,
    nodeClass: { group: AKSNodeClassGroup, kind: AKSNodeClassKind },
  });
  if (current === undefined || current.kind !== AKSNodeClassKind) return {};
  if (current.metadata.deletionTimestamp !== undefined) return {};
  const nodeClass = current as unknown as AKSNodeClass;
  const before: AKSNodeClassStatus = nodeClass.status ?? {};
  const generation = current.metadata.generation;
  const nowIso = new Date(clock.now()).toISOString();
  let conditions: AKSNodeClassCondition[] = before.conditions ?? [];
  const set = (c: NodeClassConditionUpdate) => {
    conditions = setNodeClassCondition(conditions, c, generation, nowIso);
  };
  const status: AKSNodeClassStatus = { ...before };

  // Kubernetes version: forward only; an upgrade invalidates the images.
  const served = await ctx.kubernetesVersion();
  const previous = before.kubernetesVersion;
  const order = previous ? compareKubernetesVersions(served, previous) : 1;
  if (order > 0) status.kubernetesVersion = served;
  set({ type: AKSNodeClassConditions.KubernetesVersionReady, status: 'True' });
  const upgraded = previous !== undefined && order > 0;
  const imagesWereReady =
    !upgraded &&
    before.conditions?.find((c) => c.type === AKSNodeClassConditions.ImagesReady)?.status ===
      'True';
  if (upgraded)
    set({
      type: AKSNodeClassConditions.ImagesReady,
      status: 'False',
      reason: 'KubernetesUpgrade',
      message: `Kubernetes ${previous} -> ${served}: getting the node images for the new version`,
    });

  // Images: full refresh unless they were ready and the maintenance window is closed.
  let failure: unknown;
  try {
    const fullRefresh =
      !imagesWereReady || maintenanceWindowOpen(await ctx.maintenanceWindow(), clock.now());
    const goal = await ctx.images.list(nodeClass.spec ?? {}, status.kubernetesVersion ?? served);
    status.images = fullRefresh ? goal : keepExistingVersions(goal, before.images ?? []);
    set({ type: AKSNodeClassConditions.ImagesReady, status: 'True' });
  } catch (err) {
    if (!(err instanceof NodeImagesError)) failure = err;
    else {
      status.images = [];
      set({
        type: AKSNodeClassConditions.ImagesReady,
        status: 'False',
        reason: err.reason,
        message: err.message,
      });
    }
  }

  // Subnet: never raises; an unknown ARM failure is reported and tried again soon.
  const spec = nodeClass.spec ?? {};
  const subnet = await ctx.subnets(spec);
  set(
    subnet.ready
      ? { type: AKSNodeClassConditions.SubnetsReady, status: 'True' }
      : {
          type: AKSNodeClassConditions.SubnetsReady,
          status: 'False',
          reason: subnet.reason,
          message: subnet.message,
        },
  );

  // Validation: the controller can read the operator's disk encryption set (Reader on it).
  const validation = await ctx.diskEncryptionSet();
  set({
    type: AKSNodeClassConditions.ValidationSucceeded,
    status: validation.valid ? 'True' : 'False',
    reason: validation.reason,
    message: validation.message,
  });

  // LocalDNS: the state the instance type filters and node labels follow.
  const localDNS = resolveLocalDNSState(spec, before.localDNSState);
  status.localDNSState = localDNS.state;
  set({
    type: AKSNodeClassConditions.LocalDNSReady,
    status: 'True',
    reason: localDNS.reason,
    message: localDNS.message,
  });

  // The first dependent not True (one never decided yet counts as Unknown).
  const notReady = ReadyDependents.map(
    (type): AKSNodeClassCondition =>
      conditions.find((c) => c.type === type) ?? {
        type,
        status: 'Unknown',
        reason: 'AwaitingReconciliation',
        message: `${type} is not decided yet`,
      },
  ).find((c) => c.status !== 'True');
  set(
    notReady === undefined
      ? { type: AKSNodeClassConditions.Ready, status: 'True' }
      : {
          type: AKSNodeClassConditions.Ready,
          status: notReady.status,
          reason: notReady.reason ?? notReady.type,
          message: notReady.message ?? '',
        },
  );
  status.conditions = conditions;

  const done: ReconcileResult = {
    requeueAfter: Math.min(
      !subnet.ready && subnet.reason === 'SubnetUnknownError'
        ? SubnetRetrySeconds
        : StatusRequeueSeconds,
      validation.valid ? StatusRequeueSeconds : ValidationRetrySeconds,
    ),
  };
  let result = done;
  if (JSON.stringify(status) !== JSON.stringify(before)) {
    const next: NodeClassObject = {
      ...structuredClone(current),
      status: { ...status } as NodeClassObject['status'],
    };
    const outcome = await writeNodeClassStatus(client, next);
    if (outcome === 'gone') return {};
    if (outcome === 'conflict') result = { requeueAfter: 1 };
  }
  if (failure !== undefined) throw failure;
  return result;
}

/** What {@link aksNodeClassStatusController} is built from. */
export interface AKSNodeClassStatusWiring {
  readonly client: KubeClient;
  readonly clock: Clock;
  /** GETs on the API server: `/version` and the maintenance window ConfigMap. */
  readonly request: KubeApiGet;
  /** The ARM compute client (community gallery listings). */
  readonly compute: NodeImageResolverOptions['compute'];
  /** Subnets operations of a subscription (`ArmClients.subnets`). */
  readonly subnets: SubnetReadinessOptions['subnets'];
  /** The cluster subnet ARM ID (`--vnet-subnet-id`, `VNET_SUBNET_ID`). */
  readonly clusterSubnetID: string;
  /** `AZURE_NODE_RESOURCE_GROUP` (to recognise the AKS-managed VNet). */
  readonly nodeResourceGroup: string;
  /** Disk encryption sets operations of a subscription (`ArmClients.diskEncryptionSets`). */
  readonly diskEncryptionSets: DiskEncryptionSetValidationOptions['diskEncryptionSets'];
  /** `NODE_OSDISK_DISKENCRYPTIONSET_ID`; undefined: none. */
  readonly diskEncryptionSetID?: string | undefined;
  /** ARM region of the nodes. */
  readonly location: string;
  /** `AKS_NODE_IMAGE_VERSION`: one version for every image definition; unset: the newest. */
  readonly pinnedVersion?: string | undefined;
  /**
   * Namespace of the maintenance window ConfigMap (`SYSTEM_NAMESPACE`; the operator passes its
   * pod's namespace when that is unset); default `kube-system`.
   */
  readonly systemNamespace?: string | undefined;
}

/**
 * The AKSNodeClass status reconciler the operator runs under `--provider azure`:
 * {@link reconcileAKSNodeClass} over a
 * `NodeImageResolver` on the compute client, subnet GETs on the network clients, a GET of the
 * operator's disk encryption set (when one is configured) on the compute clients, the API server's
 * `/version` (reused 15 minutes) and the maintenance window ConfigMap. A `/version` answer
 * without a readable `gitVersion` raises.
 */
export function aksNodeClassStatusController(
  w: AKSNodeClassStatusWiring,
): (name: string) => Promise<ReconcileResult> {
  const images = new NodeImageResolver({
    compute: w.compute,
    location: w.location,
    clock: w.clock,
    ...(w.pinnedVersion !== undefined ? { pinnedVersion: w.pinnedVersion } : {}),
  });
  const namespace = w.systemNamespace ?? 'kube-system';
  const ctx: AKSNodeClassStatusContext = {
    client: w.client,
    clock: w.clock,
    kubernetesVersion: cachedKubernetesVersion(() => apiServerVersion(w.request), w.clock),
    images,
    subnets: (spec) =>
      checkSubnetReadiness(
        {
          subnets: w.subnets,
          clusterSubnetID: w.clusterSubnetID,
          nodeResourceGroup: w.nodeResourceGroup,
        },
        spec,
      ),
    diskEncryptionSet: () =>
      validateDiskEncryptionSet({
        diskEncryptionSets: w.diskEncryptionSets,
        diskEncryptionSetID: w.diskEncryptionSetID,
      }),
    maintenanceWindow: () => readMaintenanceWindow(w.request, namespace),
  };
  return (name) => reconcileAKSNodeClass(ctx, name);
}
