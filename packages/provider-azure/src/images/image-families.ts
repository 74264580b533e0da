/**
 * AKS node image families: which image definitions an AKSNodeClass's nodes boot from, read from
 * `data/images.json` (upstream `pkg/providers/imagefamily`, see data/README.md), the one source
 * of truth for galleries, definitions, their arch and Hyper-V generation, and priority order.
 *
 * Resolution follows upstream `Azure/karpenter-provider-azure`'s image families: `Ubuntu` (or
 * unset) is Ubuntu 24.04 from Kubernetes 1.34 and 22.04 before (FIPS: 20.04; FIPS or trusted
 * launch: 22.04); `AzureLinux` is Azure Linux 3 from 1.32, else 2. The variant is FIPS, trusted
 * launch, both, or the default; FIPS takes precedence over trusted launch where a family has no
 * combined variant.
 */
import { readFileSync } from 'node:fs';
import type { AKSNodeClassSpec } from '../nodeclass/types.js';
import { kubernetesVersionAtLeast } from './kubernetes-version.js';

/** A family after resolution by Kubernetes version and FIPS / trusted launch. */
export type ResolvedImageFamily =
  'Ubuntu2004' | 'Ubuntu2204' | 'Ubuntu2404' | 'AzureLinux2' | 'AzureLinux3';

/** The image variant a spec asks for. */
export type ImageVariant = 'default' | 'trustedLaunch' | 'fips' | 'fips+trustedLaunch';

/** One image definition of a family variant. */
export interface NodeImageDefinition {
  /** Gallery image definition name, e.g. `2404gen2containerd`. */
  readonly definition: string;
  /** AKS distro name, e.g. `aks-ubuntu-containerd-24.04-gen2`. */
  readonly distro: string;
  readonly arch: 'amd64' | 'arm64';
  /** `1` or `2`, the value of label `karpenter.azure.com/sku-hyperv-generation`. */
  readonly hyperVGeneration: '1' | '2';
  /** Public name of the community gallery holding it, e.g. `AKSUbuntu-38d80f77-...`. */
  readonly communityGallery: string;
  /** Only in the AKS shared image gallery (FIPS images), not in the community gallery. */
  readonly sharedGalleryOnly: boolean;
}

/** The definitions a spec resolves to, in priority order (the first fitting one wins at launch). */
export interface ResolvedImageDefinitions {
  readonly family: ResolvedImageFamily;
  readonly variant: ImageVariant;
  readonly definitions: readonly NodeImageDefinition[];
}

interface RawImages {
  galleries: Record<string, { cig: string }>;
  families: Record<
    string,
    {
      gallery: string;
      variants: Record<
        string,
        {
          definition: string;
          distro: string;
          arch: 'amd64' | 'arm64';
          hyperVGeneration: '1' | '2';
        }[]
      >;
    }
  >;
}

interface Family {
  readonly variants: ReadonlyMap<ImageVariant, readonly NodeImageDefinition[]>;
}

let families: ReadonlyMap<string, Family> | undefined;

/**
 * The families of `images.json`. Variant keys there read `fips(sigOnly,noTrustedLaunch)`: the
 * name before the parenthesis is the variant, `sigOnly` marks shared-gallery-only images.
 */
function loadFamilies(): ReadonlyMap<string, Family> {
  if (families) return families;
  const raw = JSON.parse(
    readFileSync(new URL('../../data/images.json', import.meta.url), 'utf8'),
  ) as RawImages;
  const out = new Map<string, Family>();
  for (const [name, family] of Object.entries(raw.families)) {
    const gallery = raw.galleries[family.gallery];
    if (!gallery) throw new Error(`images.json: family ${name} names unknown gallery`);
    const variants = new Map<ImageVariant, NodeImageDefinition[]>();
    for (const [key, definitions] of Object.entries(family.variants)) {
      const m = /^([a-zA-Z+]+)(?:\(([^)]*)\))?$/.exec(key);
      const variant = m?.[1] as ImageVariant | undefined;
      if (!variant || !['default', 'trustedLaunch', 'fips', 'fips+trustedLaunch'].includes(variant))
        throw new Error(`images.json: family ${name} has unknown variant ${key}`);
      const sharedGalleryOnly = (m?.[2] ?? '').split(',').includes('sigOnly');
      variants.set(
        variant,
        definitions.map((d) => ({
          definition: d.definition,
          distro: d.distro,
          arch: d.arch,
          hyperVGeneration: d.hyperVGeneration,
          communityGallery: gallery.cig,
          sharedGalleryOnly,
        })),
      );
    }
    out.set(name, { variants });
  }
  families = out;
  return out;
}

/** Whether the spec asks for trusted launch (vTPM or secure boot on), as the VM template reads it. */
function trustedLaunch(spec: AKSNodeClassSpec): boolean {
  const tl = spec.security?.trustedLaunch;
  return tl?.vtpm === true || tl?.secureBoot === true;
}

/**
 * The family of `spec.imageFamily` at Kubernetes version `kubernetesVersion` (`1.33.2`).
 * Raises Error when the version is not a Kubernetes version.
 */
export function resolveImageFamily(
  spec: AKSNodeClassSpec,
  kubernetesVersion: string,
): ResolvedImageFamily {
  const fips = spec.fipsMode === 'FIPS';
  const tl = trustedLaunch(spec);
  switch (spec.imageFamily ?? 'Ubuntu') {
    case 'Ubuntu2204':
      return 'Ubuntu2204';
    case 'Ubuntu2404':
      return 'Ubuntu2404';
    case 'AzureLinux':
      return kubernetesVersionAtLeast(kubernetesVersion, 1, 32) ? 'AzureLinux3' : 'AzureLinux2';
    default:
      if (fips) return tl ? 'Ubuntu2204' : 'Ubuntu2004';
      if (tl) return 'Ubuntu2204';
      return kubernetesVersionAtLeast(kubernetesVersion, 1, 34) ? 'Ubuntu2404' : 'Ubuntu2204';
  }
}

/**
 * The image definitions of a spec at a Kubernetes version, in priority order; an empty list when
 * the family has no image for that variant (e.g. trusted launch on Ubuntu 20.04). FIPS takes
 * precedence over trusted launch unless the family has a combined variant. Raises Error when the
 * version is not a Kubernetes version.
 */
export function nodeImageDefinitions(
  spec: AKSNodeClassSpec,
  kubernetesVersion: string,
): ResolvedImageDefinitions {
  const family = resolveImageFamily(spec, kubernetesVersion);
  const variants = loadFamilies().get(family)?.variants ?? new Map();
  const fips = spec.fipsMode === 'FIPS';
  const tl = trustedLaunch(spec);
  const variant: ImageVariant =
    fips && tl && variants.has('fips+trustedLaunch')
      ? 'fips+trustedLaunch'
      : fips
        ? 'fips'
        : tl
          ? 'trustedLaunch'
          : 'default';
  return { family, variant, definitions: variants.get(variant) ?? [] };
}
