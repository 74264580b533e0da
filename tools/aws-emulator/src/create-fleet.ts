/**
 * CreateFleet of type `instant`, answered by the emulator as EC2 does and carried out on moto as
 * RunInstances calls. moto 5.2.5's own CreateFleet launches the first override whatever the
 * allocation strategy, ignores the launch template's security groups, instance profile and
 * metadata options, and cannot report per-override capacity errors (README, "Gaps").
 */
import { randomUUID } from 'node:crypto';
import {
  DescribeLaunchTemplateVersionsCommand,
  DescribeSubnetsCommand,
  RunInstancesCommand,
  type EC2Client,
  type LaunchTemplateVersion,
  type TagSpecification,
} from '@aws-sdk/client-ec2';
import { CapacityErrorMessages, type Faults } from './faults.js';
import { QueryParams, ec2Response, xmlElement } from './query-protocol.js';
import type { CapacityReservations } from './capacity-reservations.js';
import type { SpotPrices } from './spot-prices.js';

/** One instance the emulator launched for a CreateFleet call. */
export interface FleetLaunch {
  readonly fleetId: string;
  readonly instanceId: string;
  readonly instanceType: string;
  readonly zone: string;
  readonly subnetId: string;
  readonly imageId: string;
  /** The instance's lifecycle: a launch into a reservation is `on-demand`. */
  readonly capacityType: 'on-demand' | 'spot';
  /** The reservation the launch template targeted and the instance launched into. */
  readonly capacityReservationId?: string;
  readonly launchTemplateName?: string;
  /** The launch template's user data, decoded from base64 ('' when none). */
  readonly userData: string;
  /** The instance tags the request asked for. */
  readonly tags: Readonly<Record<string, string>>;
}

interface Override {
  readonly lt: { id?: string; name?: string; version: string };
  readonly instanceType: string;
  readonly subnetId: string;
  readonly zone: string;
  readonly imageId?: string;
  readonly priority?: number;
}

interface FleetError {
  readonly override: Override;
  readonly code: string;
  readonly message: string;
}

/** What {@link createFleet} needs from the emulator. */
export interface FleetContext {
  readonly moto: EC2Client;
  readonly faults: Faults;
  readonly spotPrices: SpotPrices;
  readonly capacityReservations: CapacityReservations;
  readonly onLaunch: (launch: FleetLaunch) => Promise<void> | void;
}

function tagSpecifications(p: QueryParams): TagSpecification[] {
  return p.list('TagSpecification').map((t) => ({
    ResourceType: t.get('ResourceType') as TagSpecification['ResourceType'],
    Tags: t.list('Tag').map((kv) => ({ Key: kv.get('Key') ?? '', Value: kv.get('Value') ?? '' })),
  }));
}

async function subnetZones(moto: EC2Client, ids: string[]): Promise<Map<string, string>> {
  const zones = new Map<string, string>();
  if (ids.length === 0) return zones;
  const out = await moto.send(new DescribeSubnetsCommand({ SubnetIds: [...new Set(ids)] }));
  for (const s of out.Subnets ?? []) zones.set(s.SubnetId ?? '', s.AvailabilityZone ?? '');
  return zones;
}

function overridesOf(p: QueryParams, zones: Map<string, string>): Override[] {
  const out: Override[] = [];
  for (const config of p.list('LaunchTemplateConfigs')) {
    const spec = config.at('LaunchTemplateSpecification');
    const lt = {
      ...(spec.get('LaunchTemplateId') ? { id: spec.get('LaunchTemplateId') } : {}),
      ...(spec.get('LaunchTemplateName') ? { name: spec.get('LaunchTemplateName') } : {}),
      version: spec.get('Version') ?? '$Default',
    };
    for (const o of config.list('Overrides')) {
      const subnetId = o.get('SubnetId') ?? '';
      const priority = o.get('Priority');
      const imageId = o.get('ImageId');
      out.push({
        lt,
        instanceType: o.get('InstanceType') ?? '',
        subnetId,
        zone: o.get('AvailabilityZone') ?? zones.get(subnetId) ?? '',
        ...(imageId ? { imageId } : {}),
        ...(priority !== undefined ? { priority: Number(priority) } : {}),
      });
    }
  }
  return out;
}

function overrideXml(o: Override): string {
  return (
    `<launchTemplateAndOverrides><launchTemplateSpecification>` +
    xmlElement('launchTemplateId', o.lt.id) +
    xmlElement('launchTemplateName', o.lt.name) +
    xmlElement('version', o.lt.version) +
    `</launchTemplateSpecification><overrides>` +
    xmlElement('instanceType', o.instanceType) +
    xmlElement('subnetId', o.subnetId) +
    xmlElement('availabilityZone', o.zone) +
    xmlElement('priority', o.priority) +
    xmlElement('imageId', o.imageId) +
    `</overrides></launchTemplateAndOverrides>`
  );
}

function errorCodeOf(err: unknown): { code: string; message: string } {
  const e = err as { name?: string; Code?: string; message?: string };
  return { code: e.Code ?? e.name ?? 'InternalError', message: e.message ?? String(err) };
}

/**
 * Answers a CreateFleet `instant` request (the query parameters `p`): orders the overrides as
 * the allocation strategy would (on-demand `lowest-price`: by `Priority`, which the provider sets
 * to the price; spot: by the emulator's spot price, then `Priority`), and for each unit of
 * `TotalTargetCapacity` launches the first override that no capacity fault hits through moto's
 * RunInstances (the launch template's image, security groups and user data, plus its instance
 * profile and metadata options, which moto's RunInstances does not take from a template).
 * A template whose `CapacityReservationSpecification` is `capacity-reservations-only` with a
 * target launches only into that reservation (its type and zone, while it has instances
 * available; else `ReservationCapacityExceeded` and the like, see CapacityReservations.refusal).
 * Overrides that fail are reported in `errorSet`, as EC2 does; the XML document is returned.
 */
export async function createFleet(p: QueryParams, ctx: FleetContext): Promise<string> {
  const capacityType =
    p.at('TargetCapacitySpecification').get('DefaultTargetCapacityType') === 'spot'
      ? 'spot'
      : 'on-demand';
  const total = Number(p.at('TargetCapacitySpecification').get('TotalTargetCapacity') ?? '1');
  const rawSubnets = p
    .list('LaunchTemplateConfigs')
    .flatMap((c) => c.list('Overrides').map((o) => o.get('SubnetId') ?? ''))
    .filter((s) => s !== '');
  let zones = new Map<string, string>();
  try {
    zones = await subnetZones(ctx.moto, rawSubnets);
  } catch {
    // An unknown subnet fails its override's RunInstances below, as EC2 reports it.
  }
  const overrides = overridesOf(p, zones);
  const price = (o: Override): number =>
    capacityType === 'spot'
      ? (ctx.spotPrices.price(o.instanceType, o.zone) ?? o.priority ?? Infinity)
      : (o.priority ?? Infinity);
  const ordered = overrides
    .map((o, i) => ({ o, i }))
    .sort((a, b) => price(a.o) - price(b.o) || a.i - b.i)
    .map((x) => x.o);
  const tags = tagSpecifications(p);
  const instanceTags = tags.filter(
    (t) => t.ResourceType === 'instance' || t.ResourceType === 'volume',
  );
  const fleetId = `fleet-${randomUUID()}`;
  const errors: FleetError[] = [];
  const launched: { override: Override; instanceId: string }[] = [];
  const templates = new Map<string, LaunchTemplateVersion | undefined>();
  const failed = new Set<Override>();

  for (let unit = 0; unit < total; unit++) {
    for (const o of ordered) {
      if (failed.has(o)) continue;
      const code = ctx.faults.takeCapacity(o.instanceType, o.zone, capacityType);
      if (code) {
        const message = (CapacityErrorMessages[code] as (t: string, z: string) => string)(
          o.instanceType,
          o.zone,
        );
        errors.push({ override: o, code, message });
        failed.add(o);
        continue;
      }
      try {
        const key = `${o.lt.id ?? ''}/${o.lt.name ?? ''}/${o.lt.version}`;
        if (!templates.has(key)) {
          const v = await ctx.moto.send(
            new DescribeLaunchTemplateVersionsCommand({
              ...(o.lt.id ? { LaunchTemplateId: o.lt.id } : { LaunchTemplateName: o.lt.name }),
              Versions: [o.lt.version],
            }),
          );
          templates.set(key, v.LaunchTemplateVersions?.[0]);
        }
        const data = templates.get(key)?.LaunchTemplateData ?? {};
        // A template that targets a reservation launches only into it (capacity-reservations-only).
        const reservation = data.CapacityReservationSpecification;
        const reservationId =
          reservation?.CapacityReservationPreference === 'capacity-reservations-only'
            ? reservation.CapacityReservationTarget?.CapacityReservationId
            : undefined;
        if (reservationId !== undefined) {
          const refusal = ctx.capacityReservations.refusal(reservationId, o.instanceType, o.zone);
          if (refusal) {
            errors.push({ override: o, ...refusal });
            failed.add(o);
            continue;
          }
        }
        const profile = data.IamInstanceProfile;
        const run = await ctx.moto.send(
          new RunInstancesCommand({
            MinCount: 1,
            MaxCount: 1,
            LaunchTemplate: {
              ...(o.lt.id ? { LaunchTemplateId: o.lt.id } : { LaunchTemplateName: o.lt.name }),
              Version: o.lt.version,
            },
            InstanceType: o.instanceType as never,
            SubnetId: o.subnetId,
            ...(o.imageId ? { ImageId: o.imageId } : {}),
            ...(profile?.Name || profile?.Arn
              ? {
                  IamInstanceProfile: {
                    ...(profile.Arn ? { Arn: profile.Arn } : { Name: profile.Name }),
                  },
                }
              : {}),
            ...(data.MetadataOptions ? { MetadataOptions: data.MetadataOptions as never } : {}),
            ...(capacityType === 'spot'
              ? {
                  InstanceMarketOptions: {
                    MarketType: 'spot',
                    SpotOptions: { SpotInstanceType: 'one-time' },
                  },
                }
              : {}),
            ...(instanceTags.length > 0 ? { TagSpecifications: instanceTags } : {}),
          }),
        );
        const instance = run.Instances?.[0];
        const instanceId = instance?.InstanceId ?? '';
        launched.push({ override: o, instanceId });
        if (reservationId !== undefined)
          ctx.capacityReservations.launched(reservationId, instanceId);
        await ctx.onLaunch({
          fleetId,
          instanceId,
          instanceType: o.instanceType,
          zone: o.zone,
          subnetId: o.subnetId,
          imageId: instance?.ImageId ?? o.imageId ?? data.ImageId ?? '',
          capacityType,
          ...(reservationId !== undefined ? { capacityReservationId: reservationId } : {}),
          ...(o.lt.name ? { launchTemplateName: o.lt.name } : {}),
          userData: data.UserData ? Buffer.from(data.UserData, 'base64').toString('utf8') : '',
          tags: Object.fromEntries(
            tags
              .filter((t) => t.ResourceType === 'instance')
              .flatMap((t) => (t.Tags ?? []).map((kv) => [kv.Key ?? '', kv.Value ?? ''])),
          ),
        });
        break;
      } catch (err) {
        const { code: c, message } = errorCodeOf(err);
        errors.push({ override: o, code: c, message });
        failed.add(o);
      }
    }
  }

  const errorSet = errors
    .map(
      (e) =>
        `<item>${overrideXml(e.override)}${xmlElement('lifecycle', capacityType)}${xmlElement('errorCode', e.code)}${xmlElement('errorMessage', e.message)}</item>`,
    )
    .join('');
  const instanceSet = launched
    .map(
      (l) =>
        `<item>${overrideXml(l.override)}${xmlElement('lifecycle', capacityType)}<instanceIds><item>${l.instanceId}</item></instanceIds>${xmlElement('instanceType', l.override.instanceType)}</item>`,
    )
    .join('');
  return ec2Response(
    'CreateFleet',
    `${xmlElement('fleetId', fleetId)}<errorSet>${errorSet}</errorSet><fleetInstanceSet>${instanceSet}</fleetInstanceSet>`,
  );
}
