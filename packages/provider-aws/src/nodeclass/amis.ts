/**
 * `status.amis`: the AMIs `amiSelectorTerms` select (upstream pkg/providers/amifamily). An alias
 * becomes SSM parameter reads, one per
 * architecture and variant; other terms become DescribeImages filters. For each distinct
 * requirement set one AMI is kept: non-deprecated over deprecated, then the newer CreationDate,
 * then the lexically larger name.
 */
import {
  paginateDescribeImages,
  type EC2Client,
  type Filter,
  type Image,
} from '@aws-sdk/client-ec2';
import { GetParameterCommand, GetParametersCommand, type SSMClient } from '@aws-sdk/client-ssm';
import { AliasFamilies, type AMISelectorTerm, type EC2NodeClassStatus } from '../ec2nodeclass.js';
import { AwsLabels } from '../labels.js';
import { isAwsNotFound } from '../aws/errors.js';
import { tagFilters } from './selector-filters.js';

/** One `status.amis` entry. */
export type AMIStatus = NonNullable<EC2NodeClassStatus['amis']>[number];
type Requirement = AMIStatus['requirements'][number];

/** An alias or selector that cannot resolve for a reason other than "nothing matched". */
export class AMISelectorError extends Error {}

interface ImageQuery {
  readonly filters: Filter[];
  readonly owners?: string[];
  /** Requirements of every image it finds; undefined: from the image's architecture. */
  readonly requirements?: Requirement[];
}

const Arch = 'kubernetes.io/arch';
const archLabel = (ec2Arch: string | undefined): string =>
  ec2Arch === 'arm64' ? 'arm64' : ec2Arch === 'x86_64' ? 'amd64' : (ec2Arch ?? '');

type Variant = 'standard' | 'nvidia' | 'neuron';
function variantRequirements(arch: 'amd64' | 'arm64', variant: Variant): Requirement[] {
  const reqs: Requirement[] = [{ key: Arch, operator: 'In', values: [arch] }];
  if (variant === 'standard')
    reqs.push(
      { key: AwsLabels.InstanceGPUCount, operator: 'DoesNotExist' },
      { key: AwsLabels.InstanceAcceleratorCount, operator: 'DoesNotExist' },
    );
  if (variant === 'nvidia') reqs.push({ key: AwsLabels.InstanceGPUCount, operator: 'Exists' });
  if (variant === 'neuron')
    reqs.push({ key: AwsLabels.InstanceAcceleratorCount, operator: 'Exists' });
  return reqs;
}

/**
 * The SSM parameter names an alias reads, each with the requirements of the AMI it names.
 * `kubernetesVersion` is the minor (`1.36`). Raises AMISelectorError for an unknown family, AL2
 * from Kubernetes 1.33 on, Windows with a version other than `latest`, Windows2025 before 1.35.
 */
export function aliasParameters(
  alias: string,
  kubernetesVersion: string,
): { name: string; requirements: Requirement[] }[] {
  const at = alias.indexOf('@');
  const family = AliasFamilies[alias.slice(0, at)];
  const version = alias.slice(at + 1);
  const minor = Number(kubernetesVersion.split('.')[1] ?? '0');
  const k8s = kubernetesVersion;
  const x86 = 'x86_64';
  switch (family) {
    case 'AL2023': {
      const out: { name: string; requirements: Requirement[] }[] = [];
      const variants: [string, 'amd64' | 'arm64', Variant][] = [
        [x86, 'amd64', 'standard'],
        [x86, 'amd64', 'nvidia'],
        [x86, 'amd64', 'neuron'],
        ['arm64', 'arm64', 'standard'],
        ['arm64', 'arm64', 'nvidia'],
      ];
      for (const [ssmArch, arch, variant] of variants) {
        const leaf =
          version === 'latest'
            ? 'recommended'
            : `amazon-eks-node-al2023-${ssmArch}-${variant}-${k8s}-${version}`;
        out.push({
          name: `/aws/service/eks/optimized-ami/${k8s}/amazon-linux-2023/${ssmArch}/${variant}/${leaf}/image_id`,
          requirements: variantRequirements(arch, variant),
        });
      }
      return out;
    }
    case 'AL2': {
      if (minor >= 33)
        throw new AMISelectorError(
          `alias ${alias}: AL2 is not supported from Kubernetes 1.33 on (cluster is ${k8s})`,
        );
      const leaf = version === 'latest' ? 'recommended' : `amazon-eks-node-${k8s}-${version}`;
      const base = `/aws/service/eks/optimized-ami/${k8s}`;
      return [
        {
          name: `${base}/amazon-linux-2/${leaf}/image_id`,
          requirements: variantRequirements('amd64', 'standard'),
        },
        {
          name: `${base}/amazon-linux-2-gpu/${leaf}/image_id`,
          requirements: variantRequirements('amd64', 'nvidia'),
        },
        {
          name: `${base}/amazon-linux-2-arm64/${leaf}/image_id`,
          requirements: variantRequirements('arm64', 'standard'),
        },
      ];
    }
    case 'Bottlerocket': {
      const v = version === 'latest' ? 'latest' : `v${version.replace(/^v/, '')}`;
      return [
        {
          name: `/aws/service/bottlerocket/aws-k8s-${k8s}/x86_64/${v}/image_id`,
          requirements: variantRequirements('amd64', 'standard'),
        },
        {
          name: `/aws/service/bottlerocket/aws-k8s-${k8s}/arm64/${v}/image_id`,
          requirements: variantRequirements('arm64', 'standard'),
        },
        {
          name: `/aws/service/bottlerocket/aws-k8s-${k8s}-nvidia/x86_64/${v}/image_id`,
          requirements: variantRequirements('amd64', 'nvidia'),
        },
        {
          name: `/aws/service/bottlerocket/aws-k8s-${k8s}-nvidia/arm64/${v}/image_id`,
          requirements: variantRequirements('arm64', 'nvidia'),
        },
      ];
    }
    case 'Windows2019':
    case 'Windows2022':
    case 'Windows2025': {
      if (version !== 'latest')
        throw new AMISelectorError(
          `alias ${alias}: Windows aliases only accept the version latest`,
        );
      if (family === 'Windows2025' && minor < 35)
        throw new AMISelectorError(
          `alias ${alias}: Windows2025 needs Kubernetes 1.35 or later (cluster is ${k8s})`,
        );
      const year = family.slice('Windows'.length);
      return [
        {
          name: `/aws/service/ami-windows-latest/Windows_Server-${year}-English-Core-EKS_Optimized-${k8s}/image_id`,
          requirements: [{ key: Arch, operator: 'In', values: ['amd64'] }],
        },
      ];
    }
    default:
      throw new AMISelectorError(`alias ${alias}: unknown AMI family`);
  }
}

/** SSM values by name for the names that exist (GetParameters, 10 names a call). */
async function readParameters(ssm: SSMClient, names: string[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (let i = 0; i < names.length; i += 10) {
    const page = await ssm.send(new GetParametersCommand({ Names: names.slice(i, i + 10) }));
    for (const p of page.Parameters ?? []) if (p.Name && p.Value) out.set(p.Name, p.Value);
  }
  return out;
}

async function queriesFor(
  ssm: SSMClient,
  terms: readonly AMISelectorTerm[],
  kubernetesVersion: string,
): Promise<ImageQuery[]> {
  const queries: ImageQuery[] = [];
  for (const term of terms) {
    if (term.alias) {
      const params = aliasParameters(term.alias, kubernetesVersion);
      const values = await readParameters(
        ssm,
        params.map((p) => p.name),
      );
      for (const p of params) {
        const id = values.get(p.name);
        if (id?.startsWith('ami-'))
          queries.push({
            filters: [{ Name: 'image-id', Values: [id] }],
            requirements: p.requirements,
          });
      }
      continue;
    }
    if (term.ssmParameter) {
      try {
        const out = await ssm.send(new GetParameterCommand({ Name: term.ssmParameter }));
        const id = out.Parameter?.Value ?? '';
        if (id.startsWith('ami-')) queries.push({ filters: [{ Name: 'image-id', Values: [id] }] });
      } catch (err) {
        if (!isAwsNotFound(err)) throw err;
      }
      continue;
    }
    if (term.id) {
      queries.push({ filters: [{ Name: 'image-id', Values: [term.id] }] });
      continue;
    }
    const filters = tagFilters(term.tags);
    if (term.name) filters.push({ Name: 'name', Values: [term.name] });
    const owners = term.owner ? [term.owner] : term.name ? ['self', 'amazon'] : undefined;
    queries.push({ filters, ...(owners ? { owners } : {}) });
  }
  return queries;
}

function deprecated(image: Image, now: number): boolean {
  return image.DeprecationTime !== undefined && Date.parse(image.DeprecationTime) <= now;
}

/**
 * True when image `a` is kept over `b` for the same requirements (upstream's order): a
 * non-deprecated image (no `DeprecationTime`, or one after `now`, ms) over a deprecated one, then
 * the newer `CreationDate`, then the lexically larger name.
 */
export function preferImage(a: Image, b: Image, now: number): boolean {
  const da = deprecated(a, now);
  const db = deprecated(b, now);
  if (da !== db) return !da;
  const ca = Date.parse(a.CreationDate ?? '') || 0;
  const cb = Date.parse(b.CreationDate ?? '') || 0;
  if (ca !== cb) return ca > cb;
  return (a.Name ?? '') > (b.Name ?? '');
}

/**
 * The AMIs of `terms` for a cluster at `kubernetesVersion` (minor, `1.36`), one per requirement
 * set, newest first. Raises AMISelectorError for an alias that cannot resolve (see
 * {@link aliasParameters}) and the SDK's error for failed calls; finding nothing returns `[]`.
 */
export async function resolveAMIs(
  clients: { ec2: EC2Client; ssm: SSMClient },
  terms: readonly AMISelectorTerm[],
  kubernetesVersion: string,
  now: number = Date.now(),
): Promise<AMIStatus[]> {
  const queries = await queriesFor(clients.ssm, terms, kubernetesVersion);
  const best = new Map<string, { image: Image; requirements: Requirement[] }>();
  for (const q of queries) {
    for await (const page of paginateDescribeImages(
      { client: clients.ec2 },
      { Filters: q.filters, ...(q.owners ? { Owners: q.owners } : {}), IncludeDeprecated: true },
    )) {
      for (const image of page.Images ?? []) {
        if (!image.ImageId) continue;
        const requirements = q.requirements ?? [
          { key: Arch, operator: 'In', values: [archLabel(image.Architecture)] },
        ];
        const key = JSON.stringify(requirements);
        const kept = best.get(key);
        if (!kept || preferImage(image, kept.image, now)) best.set(key, { image, requirements });
      }
    }
  }
  return [...best.values()]
    .sort(
      (a, b) =>
        (Date.parse(b.image.CreationDate ?? '') || 0) -
          (Date.parse(a.image.CreationDate ?? '') || 0) ||
        (a.image.ImageId ?? '').localeCompare(b.image.ImageId ?? ''),
    )
    .map(({ image, requirements }) => ({
      id: image.ImageId ?? '',
      ...(image.Name ? { name: image.Name } : {}),
      ...(deprecated(image, now) ? { deprecated: true } : {}),
      requirements,
    }));
}
