/**
 * Launch templates (upstream pkg/providers/launchtemplate, reference 4.2 step 6): one per
 * distinct set of launch options (AMI, user data, security groups, instance profile, block
 * devices, metadata options), named `karpenter.k8s.aws/<hash of the options>`, found by name or
 * created, tagged for the cluster and NodeClass so garbage collection can find them.
 */
import { createHash } from 'node:crypto';
import {
  CreateLaunchTemplateCommand,
  DeleteLaunchTemplateCommand,
  DescribeLaunchTemplatesCommand,
  paginateDescribeLaunchTemplates,
  type EC2Client,
  type LaunchTemplate,
  type RequestLaunchTemplateData,
} from '@aws-sdk/client-ec2';
import { awsErrorCode, isAwsNotFound } from '../aws/errors.js';
import type { BlockDeviceMapping, MetadataOptions } from '../ec2nodeclass.js';

/** Name prefix of Karpenter's launch templates. */
export const LaunchTemplateNamePrefix = 'karpenter.k8s.aws/';

/** What one launch template holds. */
export interface LaunchTemplateOptions {
  readonly imageId: string;
  /** Plain text; stored base64. */
  readonly userData: string;
  readonly securityGroupIds: readonly string[];
  readonly instanceProfile: string;
  readonly blockDeviceMappings?: readonly BlockDeviceMapping[];
  readonly metadataOptions?: MetadataOptions;
  readonly detailedMonitoring?: boolean;
  readonly associatePublicIPAddress?: boolean;
  /** Tags of the template and of the network interfaces it creates. */
  readonly tags: Readonly<Record<string, string>>;
  /**
   * The capacity reservation preference (set only with the ReservedCapacity gate, as upstream):
   * `none` keeps the instance out of open reservations; a target launches into that reservation
   * only (`capacity-reservations-only`), with the market type of a capacity block or an
   * interruptible reservation.
   */
  readonly capacityReservation?:
    | 'none'
    | {
        readonly id: string;
        readonly marketType?: 'capacity-block' | 'interruptible-capacity-reservation';
      };
}

function sizeGiB(size: string | undefined): number | undefined {
  if (!size) return undefined;
  const m = /^(\d+)(Gi|G|Ti|T)?$/.exec(size);
  if (!m) return undefined;
  const n = Number(m[1]);
  return m[2] === 'Ti' || m[2] === 'T' ? n * 1024 : n;
}

/** The EC2 launch template data for `o` (IMDS defaults as the CRD's; instance metadata tags off). */
export function launchTemplateData(o: LaunchTemplateOptions): RequestLaunchTemplateData {
  const md = o.metadataOptions ?? {};
  const tags = Object.entries(o.tags).map(([Key, Value]) => ({ Key, Value }));
  return {
    ImageId: o.imageId,
    UserData: Buffer.from(o.userData).toString('base64'),
    IamInstanceProfile: { Name: o.instanceProfile },
    ...(o.associatePublicIPAddress === undefined
      ? { SecurityGroupIds: [...o.securityGroupIds] }
      : {
          NetworkInterfaces: [
            {
              DeviceIndex: 0,
              AssociatePublicIpAddress: o.associatePublicIPAddress,
              Groups: [...o.securityGroupIds],
            },
          ],
        }),
    MetadataOptions: {
      HttpEndpoint: md.httpEndpoint ?? 'enabled',
      HttpProtocolIpv6: md.httpProtocolIPv6 ?? 'disabled',
      HttpPutResponseHopLimit: md.httpPutResponseHopLimit ?? 1,
      HttpTokens: md.httpTokens ?? 'required',
      InstanceMetadataTags: 'disabled',
    },
    Monitoring: { Enabled: o.detailedMonitoring ?? false },
    ...(o.blockDeviceMappings?.length
      ? {
          BlockDeviceMappings: o.blockDeviceMappings.map((b) => ({
            DeviceName: b.deviceName,
            Ebs: {
              ...(b.ebs?.deleteOnTermination !== undefined
                ? { DeleteOnTermination: b.ebs.deleteOnTermination }
                : {}),
              ...(b.ebs?.encrypted !== undefined ? { Encrypted: b.ebs.encrypted } : {}),
              ...(b.ebs?.iops !== undefined ? { Iops: b.ebs.iops } : {}),
              ...(b.ebs?.kmsKeyID ? { KmsKeyId: b.ebs.kmsKeyID } : {}),
              ...(b.ebs?.snapshotID ? { SnapshotId: b.ebs.snapshotID } : {}),
              ...(b.ebs?.throughput !== undefined ? { Throughput: b.ebs.throughput } : {}),
              ...(sizeGiB(b.ebs?.volumeSize) !== undefined
                ? { VolumeSize: sizeGiB(b.ebs?.volumeSize) }
                : {}),
              ...(b.ebs?.volumeType ? { VolumeType: b.ebs.volumeType as never } : {}),
            },
          })),
        }
      : {}),
    TagSpecifications: [{ ResourceType: 'network-interface', Tags: tags }],
    ...capacityReservationData(o.capacityReservation),
  };
}

function capacityReservationData(
  cr: LaunchTemplateOptions['capacityReservation'],
): Partial<RequestLaunchTemplateData> {
  if (cr === undefined) return {};
  if (cr === 'none')
    return { CapacityReservationSpecification: { CapacityReservationPreference: 'none' } };
  return {
    CapacityReservationSpecification: {
      CapacityReservationPreference: 'capacity-reservations-only',
      CapacityReservationTarget: { CapacityReservationId: cr.id },
    },
    ...(cr.marketType ? { InstanceMarketOptions: { MarketType: cr.marketType } } : {}),
  };
}

/** `karpenter.k8s.aws/<decimal of the first 8 bytes of sha256 over the template data>`. */
export function launchTemplateName(data: RequestLaunchTemplateData): string {
  const digest = createHash('sha256').update(JSON.stringify(data)).digest();
  return `${LaunchTemplateNamePrefix}${digest.readBigUInt64BE(0).toString()}`;
}

/** A launch template in place: its name, and whether this call created it. */
export interface EnsuredLaunchTemplate {
  readonly name: string;
  readonly id: string;
  readonly created: boolean;
}

/**
 * Finds the template for `o` by name or creates it (tagged with `o.tags`). A concurrent create
 * of the same name (`InvalidLaunchTemplateName.AlreadyExistsException`) reads the winner's.
 * Raises the SDK's error for other failures.
 */
export async function ensureLaunchTemplate(
  ec2: EC2Client,
  o: LaunchTemplateOptions,
): Promise<EnsuredLaunchTemplate> {
  const data = launchTemplateData(o);
  const name = launchTemplateName(data);
  const existing = await describeByName(ec2, name);
  if (existing) return { name, id: existing.LaunchTemplateId ?? '', created: false };
  try {
    const out = await ec2.send(
      new CreateLaunchTemplateCommand({
        LaunchTemplateName: name,
        LaunchTemplateData: data,
        TagSpecifications: [
          {
            ResourceType: 'launch-template',
            Tags: Object.entries(o.tags).map(([Key, Value]) => ({ Key, Value })),
          },
        ],
      }),
    );
    return { name, id: out.LaunchTemplate?.LaunchTemplateId ?? '', created: true };
  } catch (err) {
    if (awsErrorCode(err) !== 'InvalidLaunchTemplateName.AlreadyExistsException') throw err;
    const winner = await describeByName(ec2, name);
    if (!winner) throw err;
    return { name, id: winner.LaunchTemplateId ?? '', created: false };
  }
}

async function describeByName(ec2: EC2Client, name: string): Promise<LaunchTemplate | undefined> {
  try {
    const out = await ec2.send(new DescribeLaunchTemplatesCommand({ LaunchTemplateNames: [name] }));
    return out.LaunchTemplates?.[0];
  } catch (err) {
    if (isAwsNotFound(err) || awsErrorCode(err) === 'InvalidLaunchTemplateName.NotFoundException')
      return undefined;
    throw err;
  }
}

/** Deletes a launch template by name; an already-deleted one is not an error. */
export async function deleteLaunchTemplate(ec2: EC2Client, name: string): Promise<void> {
  try {
    await ec2.send(new DeleteLaunchTemplateCommand({ LaunchTemplateName: name }));
  } catch (err) {
    if (isAwsNotFound(err) || awsErrorCode(err) === 'InvalidLaunchTemplateName.NotFoundException')
      return;
    throw err;
  }
}

/** Every launch template tagged `eks:eks-cluster-name=<cluster>` (optionally also for one NodeClass). */
export async function clusterLaunchTemplates(
  ec2: EC2Client,
  clusterName: string,
  nodeClassName?: string,
): Promise<LaunchTemplate[]> {
  const filters = [{ Name: 'tag:eks:eks-cluster-name', Values: [clusterName] }];
  if (nodeClassName)
    filters.push({ Name: 'tag:karpenter.k8s.aws/ec2nodeclass', Values: [nodeClassName] });
  const out: LaunchTemplate[] = [];
  for await (const page of paginateDescribeLaunchTemplates({ client: ec2 }, { Filters: filters }))
    out.push(...(page.LaunchTemplates ?? []));
  return out;
}
