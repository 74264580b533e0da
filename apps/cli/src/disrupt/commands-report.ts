/**
 * A disruption command as `disrupt` reports it: method and reason, the candidates with their
 * instance type, offering and price, each replacement's instance-type options and the offering
 * the cloud would launch for it (the cloud's launch ranking, as `simulate` reports launches), and
 * the savings in USD/hour the controllers computed.
 */
import type { DisruptionReason } from '@karpenter-ts/api';
import { Labels } from '@karpenter-ts/api';
import type { InstanceType } from '@karpenter-ts/cloudprovider';
import { decision, type Command, type MethodName } from '@karpenter-ts/controllers';
import type { NewNodeClaim } from '@karpenter-ts/scheduling';
import type { Cloud } from '../clouds/cloud.js';
import { roundUsd } from '../output/units.js';

/** Most replacement options listed by name (the count says how many there are). */
export const LISTED_OPTIONS = 10;

/** A candidate of a command. */
export interface CandidateReport {
  readonly name: string;
  readonly nodePool: string;
  readonly instanceType: string | undefined;
  readonly zone: string | undefined;
  readonly capacityType: string | undefined;
  /** USD/hour of its offering (0 when the catalog does not price it). */
  readonly pricePerHour: number;
  /** Pods that must move. */
  readonly pods: number;
}

/** The offering a replacement would launch on. */
export interface LaunchReport {
  readonly instanceType: string;
  readonly zone: string;
  readonly capacityType: string;
  readonly pricePerHour: number;
}

/** A replacement node claim of a command. */
export interface ReplacementReport {
  readonly nodePool: string;
  /** The cheapest options, at most {@link LISTED_OPTIONS}. */
  readonly instanceTypeOptions: readonly string[];
  /** How many options there are. */
  readonly options: number;
  /** What the cloud would launch; undefined when no option has an available offering. */
  readonly launch: LaunchReport | undefined;
  /** Pods it takes. */
  readonly pods: number;
}

/** One command. */
export interface CommandReport {
  readonly method: MethodName;
  readonly reason: DisruptionReason;
  readonly decision: 'delete' | 'replace';
  readonly candidates: readonly CandidateReport[];
  readonly replacements: readonly ReplacementReport[];
  /** Σ candidate prices minus the cheapest replacement offering (the controllers' figure). */
  readonly savingsPerHour: number;
  /** Existing nodes the candidates' pods move to. */
  readonly destinations: readonly string[];
}

/** The report of `command` on `cloud`. */
export function commandReport(command: Command, cloud: Cloud): CommandReport {
  return {
    method: command.method,
    reason: command.reason,
    decision: decision(command),
    candidates: command.candidates.map((c) => ({
      name: c.name,
      nodePool: c.nodePoolName,
      instanceType: c.instanceType?.name ?? c.node.metadata?.labels?.[Labels.InstanceType],
      zone: c.zone,
      capacityType: c.capacityType,
      pricePerHour: roundUsd(c.price),
      pods: c.reschedulablePods.length,
    })),
    replacements: command.replacements.map((r) => replacementReport(r, cloud)),
    savingsPerHour: roundUsd(command.savings),
    destinations: [...command.destinations],
  };
}

function replacementReport(claim: NewNodeClaim<InstanceType>, cloud: Cloud): ReplacementReport {
  const launch = cloud.chooseLaunch(claim.instanceTypeOptions, claim.requirements);
  return {
    nodePool: claim.nodePoolName,
    instanceTypeOptions: claim.instanceTypeOptions.slice(0, LISTED_OPTIONS).map((it) => it.name),
    options: claim.instanceTypeOptions.length,
    launch: launch && {
      instanceType: launch.instanceType.name,
      zone: launch.offering.zone,
      capacityType: launch.offering.capacityType,
      pricePerHour: roundUsd(launch.offering.price),
    },
    pods: claim.pods.length,
  };
}
