/**
 * Reading ARM errors out of Azure SDK failures, and classifying them the way upstream's launch
 * path (`Azure/karpenter-provider-azure`) does.
 *
 * Errors reach us in two shapes: a synchronous failure is a RestError whose `code` is ARM's
 * error code (and `statusCode` the HTTP status); a long-running operation that fails late is a
 * plain Error from @azure/core-lro whose message reads
 * `The long-running operation has failed. <code>. <message>`.
 */
import { isRestError } from '@azure/core-rest-pipeline';
import type { AzureCapacityType } from '../instancetype/options.js';

/** An ARM error: code, message, HTTP status when known. */
export interface ArmErrorInfo {
  readonly code: string;
  readonly message: string;
  readonly statusCode?: number;
}

const LRO_FAILURE = /^The long-running operation has failed\. ([A-Za-z]+)\. ([\s\S]*)$/;

/** The ARM error inside an SDK error, or undefined when there is none (network errors, bugs). */
export function armErrorOf(err: unknown): ArmErrorInfo | undefined {
  if (isRestError(err)) {
    const details = err.details as { error?: { code?: string; message?: string } } | undefined;
    const code = err.code ?? details?.error?.code;
    return {
      code: code ?? `HTTP${err.statusCode ?? ''}`,
      message: err.message,
      ...(err.statusCode === undefined ? {} : { statusCode: err.statusCode }),
    };
  }
  if (err instanceof Error) {
    const m = LRO_FAILURE.exec(err.message);
    if (m) return { code: m[1] as string, message: m[2] as string };
  }
  return undefined;
}

/**
 * `err` as text for a status condition or log line: `<code>: <message>` when it carries an ARM
 * error (see {@link armErrorOf}), else its message (`String(err)` for a thrown non-Error).
 */
export function armErrorText(err: unknown): string {
  const arm = armErrorOf(err);
  if (arm) return `${arm.code}: ${arm.message}`;
  return err instanceof Error ? err.message : String(err);
}

/** True for ARM's 404 (`ResourceNotFound`, `NotFound`). */
export function isNotFound(err: unknown): boolean {
  const info = armErrorOf(err);
  return info?.statusCode === 404 || info?.code === 'ResourceNotFound' || info?.code === 'NotFound';
}

/** What a launch error means for the unavailable-offerings cache. */
export type LaunchErrorClass =
  | { readonly kind: 'spotQuota'; readonly reason: 'SubscriptionQuotaReached' }
  | {
      readonly kind: 'familyQuota';
      readonly reason: 'SubscriptionQuotaReached';
      /** `Current Limit: 0`: the family is not usable at all (longer TTL). */
      readonly limitZero: boolean;
    }
  | { readonly kind: 'regionalQuota'; readonly reason: 'SubscriptionQuotaReached' }
  | { readonly kind: 'skuNotAvailable'; readonly reason: 'SKUNotAvailable' }
  | { readonly kind: 'zonalAllocationFailed'; readonly reason: 'ZonalAllocationFailure' }
  | { readonly kind: 'allocationFailed'; readonly reason: 'AllocationFailure' }
  | {
      readonly kind: 'overconstrainedZonal';
      readonly reason: 'OverconstrainedZonalAllocationFailure';
    }
  | { readonly kind: 'overconstrained'; readonly reason: 'OverconstrainedAllocationFailure' }
  | { readonly kind: 'other'; readonly reason: 'LaunchFailed' };

/** Classifies an ARM error code/message as upstream's launch path does. */
export function classifyLaunchError(info: ArmErrorInfo): LaunchErrorClass {
  const { code, message } = info;
  if (code === 'OperationNotAllowed') {
    if (message.includes('LowPriorityCores'))
      return { kind: 'spotQuota', reason: 'SubscriptionQuotaReached' };
    if (message.includes('exceeding approved Total Regional Cores quota'))
      return { kind: 'regionalQuota', reason: 'SubscriptionQuotaReached' };
    if (/Family Cores quota/i.test(message))
      return {
        kind: 'familyQuota',
        reason: 'SubscriptionQuotaReached',
        limitZero: /Current Limit: 0\b/.test(message),
      };
    return { kind: 'other', reason: 'LaunchFailed' };
  }
  switch (code) {
    case 'SkuNotAvailable':
      return { kind: 'skuNotAvailable', reason: 'SKUNotAvailable' };
    case 'ZonalAllocationFailed':
      return { kind: 'zonalAllocationFailed', reason: 'ZonalAllocationFailure' };
    case 'AllocationFailed':
      return { kind: 'allocationFailed', reason: 'AllocationFailure' };
    case 'OverconstrainedZonalAllocationRequest':
      return { kind: 'overconstrainedZonal', reason: 'OverconstrainedZonalAllocationFailure' };
    case 'OverconstrainedAllocationRequest':
      return { kind: 'overconstrained', reason: 'OverconstrainedAllocationFailure' };
    default:
      return { kind: 'other', reason: 'LaunchFailed' };
  }
}

/** The offering a launch attempted. `zone` is the zone label (`eastus-1`) or `0` (regional). */
export interface AttemptedOffering {
  readonly sku: string;
  /** ARM quota family (`standardDSv3Family`), when known. */
  readonly family: string | undefined;
  readonly vCPUs: number;
  readonly zone: string;
  readonly capacityType: AzureCapacityType;
}
