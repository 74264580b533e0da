/**
 * The `AKSNodeClass` (`karpenter.azure.com/v1beta1`, cluster-scoped) as the operator serves it,
 * and its status controller: `status.kubernetesVersion` from the API server's `/version`,
 * `status.images` (community gallery node images of the resolved image family, in priority
 * order, each selecting instance types by arch and Hyper-V generation; reference
 * azure-provider.md 7 and `images.json`), then `Ready=True`. What we cannot resolve (FIPS images
 * live only in the shared gallery) gives `Ready=False` with the reason, so launches wait.
 *
 * Differences from upstream: the image version is one configured value (`AKS_NODE_IMAGE_VERSION`)
 * rather than the gallery's newest; subnets, identity and the maintenance window are not checked.
 */
import type { Clock, KubeClient, ReconcileResult } from '@karpenter-ts/controllers';
import {
  AKSNodeClassGroup,
  AKSNodeClassKind,
  type AKSNodeClass,
  type AKSNodeClassStatus,
} from '@karpenter-ts/provider-azure';
import { writeNodeClassReady } from '../kube/nodeclass-ready.js';

/** Where AKSNodeClass lives in the API (the shape @karpenter-ts/kube takes for NodeClass kinds). */
export const AKSNodeClassResource = {
  group: AKSNodeClassGroup,
  version: 'v1beta1',
  plural: 'aksnodeclasses',
  kind: AKSNodeClassKind,
  namespaced: false,
} as const;

/** Community image galleries of the AKS node images (public, self-hosted mode). */
export const AKSCommunityGalleries = {
  ubuntu: 'AKSUbuntu-38d80f77-467a-481f-a8d4-09b6d4220bd2',
  azurelinux: 'AKSAzureLinux-f7c7cda5-1c9a-4bdc-a222-9614c968580b',
} as const;

type ImageDefinition = readonly [definition: string, arch: 'amd64' | 'arm64', hyperV: '1' | '2'];

/** Image definitions per resolved family: default variant, and trusted launch (Gen2 amd64 only). */
const FAMILIES: Record<
  string,
  {
    gallery: keyof typeof AKSCommunityGalleries;
    standard: ImageDefinition[];
    tl: ImageDefinition[];
  }
> = {
  Ubuntu2204: {
    gallery: 'ubuntu',
    standard: [
      ['2204gen2containerd', 'amd64', '2'],
      ['2204containerd', 'amd64', '1'],
      ['2204gen2arm64containerd', 'arm64', '2'],
    ],
    tl: [['2204gen2TLcontainerd', 'amd64', '2']],
  },
  Ubuntu2404: {
    gallery: 'ubuntu',
    standard: [
      ['2404gen2containerd', 'amd64', '2'],
      ['2404containerd', 'amd64', '1'],
      ['2404gen2arm64containerd', 'arm64', '2'],
    ],
    tl: [['2404gen2TLcontainerd', 'amd64', '2']],
  },
  AzureLinux2: {
    gallery: 'azurelinux',
    standard: [
      ['V2gen2', 'amd64', '2'],
      ['V2', 'amd64', '1'],
      ['V2gen2arm64', 'arm64', '2'],
    ],
    tl: [['V2gen2TL', 'amd64', '2']],
  },
  AzureLinux3: {
    gallery: 'azurelinux',
    standard: [
      ['V3gen2', 'amd64', '2'],
      ['V3', 'amd64', '1'],
      ['V3gen2arm64', 'arm64', '2'],
    ],
    tl: [['V3gen2TL', 'amd64', '2']],
  },
};

function minorAtLeast(kubernetesVersion: string, minor: number): boolean {
  const m = /^(\d+)\.(\d+)/.exec(kubernetesVersion);
  return m !== null && (Number(m[1]) > 1 || Number(m[2]) >= minor);
}

/**
 * The node images for a NodeClass spec and Kubernetes version (`1.33.2`, no `v`), as
 * `status.images`, or an Error message when none can be offered. Family resolution follows
 * upstream: `Ubuntu` (or unset) is Ubuntu 24.04 from Kubernetes 1.34 (22.04 with trusted launch
 * or before), `AzureLinux` is Azure Linux 3 from 1.32; FIPS is refused (shared gallery only).
 */
export function aksNodeImages(
  spec: AKSNodeClass['spec'],
  kubernetesVersion: string,
  imageVersion: string,
): AKSNodeClassStatus['images'] | string {
  if (spec.fipsMode === 'FIPS')
    return 'fipsMode FIPS needs shared image gallery images, which this controller does not use';
  const trusted = spec.security?.trustedLaunch !== undefined;
  const family = spec.imageFamily ?? 'Ubuntu';
  const resolved =
    family === 'AzureLinux'
      ? minorAtLeast(kubernetesVersion, 32)
        ? 'AzureLinux3'
        : 'AzureLinux2'
      : family === 'Ubuntu'
        ? !trusted && minorAtLeast(kubernetesVersion, 34)
          ? 'Ubuntu2404'
          : 'Ubuntu2204'
        : family;
  const defs = FAMILIES[resolved];
  if (defs === undefined) return `imageFamily ${family} has no node images`;
  const gallery = AKSCommunityGalleries[defs.gallery];
  return (trusted ? defs.tl : defs.standard).map(([definition, arch, gen]) => ({
    id: `/CommunityGalleries/${gallery}/images/${definition}/versions/${imageVersion}`,
    requirements: [
      { key: 'kubernetes.io/arch', operator: 'In', values: [arch] },
      { key: 'karpenter.azure.com/sku-hyperv-generation', operator: 'In', values: [gen] },
    ],
  }));
}

/** What {@link reconcileAKSNodeClass} needs. */
export interface AKSNodeClassStatusContext {
  readonly client: KubeClient;
  readonly clock: Clock;
  /** The API server's version without `v` (`1.36.3`), e.g. from `GET /version`. */
  kubernetesVersion(): Promise<string>;
  readonly imageVersion: string;
}

/**
 * Writes `status.kubernetesVersion`, `status.images` and the `Ready` condition of the named
 * AKSNodeClass when they differ from what it holds; requeues 1 s on a conflict and every 5
 * minutes to follow API server upgrades. A missing or deleting NodeClass is left alone.
 */
export async function reconcileAKSNodeClass(
  ctx: AKSNodeClassStatusContext,
  name: string,
): Promise<ReconcileResult> {
  const { client, clock } = ctx;
  const kind = { group: AKSNodeClassGroup, kind: AKSNodeClassKind };
  const current = await client.get('NodeClass', { name, nodeClass: kind });
  if (current === undefined || current.kind !== AKSNodeClassKind) return {};
  if (current.metadata.deletionTimestamp !== undefined) return {};
  const nodeClass = current as unknown as AKSNodeClass;
  const version = await ctx.kubernetesVersion();
  const images = aksNodeImages(nodeClass.spec ?? {}, version, ctx.imageVersion);
  const ok = typeof images !== 'string';
  const generation = current.metadata.generation;
  const conditions = current.status?.conditions ?? [];
  const ready = conditions.find((c) => c.type === 'Ready');
  const status = ok ? 'True' : 'False';
  const reason = ok ? 'Ready' : 'ImagesNotResolved';
  const message = ok ? '' : images;
  const status0 = (current.status ?? {}) as AKSNodeClassStatus;
  const unchanged =
    ready?.status === status &&
    ready.observedGeneration === generation &&
    ready.message === message &&
    status0.kubernetesVersion === version &&
    JSON.stringify(status0.images ?? []) === JSON.stringify(ok ? images : []);
  if (unchanged) return { requeueAfter: 300 };
  return writeNodeClassReady(
    client,
    clock,
    current,
    { status, reason, message },
    { kubernetesVersion: version, images: ok ? images : [] },
    { requeueAfter: 300 },
  );
}
