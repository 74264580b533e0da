/**
 * What every handler of the emulator works with: the state, the faults, the SKU catalog, options,
 * and the URL clients reach the emulator at (for operation and next-page links).
 */
import { randomUUID } from 'node:crypto';
import { ArmError, resourceNotFound } from './arm-error.js';
import type { Faults, RequestFacts } from './faults.js';
import type { SkuCatalog } from './sku-catalog.js';
import type { ArmOperation, ArmResource, EmulatorState } from './state.js';

/** A virtual machine that has just finished provisioning, as handed to the boot hook. */
export interface BootedVirtualMachine {
  /** The VM as ARM returns it. */
  readonly vm: ArmResource;
  /** The decoded `osProfile.customData` (UTF-8), '' when none was sent; ARM never returns it on GET. */
  readonly customData: string;
}

/** Called when a VM's create operation succeeds (e.g. to register a Node in a Kubernetes API). */
export type VmBootHook = (booted: BootedVirtualMachine) => void | Promise<void>;

/** A handler's answer. */
export interface ArmResponse {
  readonly status: number;
  readonly body?: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

/** Handler context. */
export interface EmulatorContext {
  readonly state: EmulatorState;
  readonly faults: Faults;
  /** The VM sizes sold now. */
  readonly skus: SkuCatalog;
  /** Base URL clients use, without trailing slash. */
  baseUrl(): string;
  /** Polls a long-running operation answers InProgress before completing (default 1). */
  readonly defaultOperationPolls: number;
  /**
   * Milliseconds after which an operation nobody polls finishes on its own, as ARM finishes an
   * accepted operation whether or not its client is still there; undefined: never.
   */
  readonly unpolledOperationMs: number | undefined;
  /** Items per page of list responses. */
  readonly pageSize: number;
  readonly onVmBooted: VmBootHook | undefined;
  /** Write-only VM fields kept aside (customData), by VM ID (lower case). */
  readonly secrets: Map<string, { customData: string }>;
}

/** Starts a long-running operation on a resource and returns it. */
export function startOperation(
  ctx: EmulatorContext,
  resourceId: string,
  kind: ArmOperation['kind'],
  pollsLeft: number,
  error?: { code: string; message: string },
): ArmOperation {
  const op: ArmOperation = {
    id: randomUUID(),
    resourceId,
    kind,
    startTime: new Date().toISOString(),
    pollsLeft,
    lastPolledAt: Date.now(),
    status: 'InProgress',
    ...(error ? { error } : {}),
  };
  ctx.state.operations.set(op.id, op);
  return op;
}

/**
 * Whether a resource's create is still running (`Creating`, or `Updating` for a NIC): an
 * operation that was accepted and not yet polled to its end.
 */
export function isProvisioning(resource: ArmResource): boolean {
  const state = resource.properties.provisioningState;
  return state === 'Creating' || state === 'Updating';
}

/**
 * Answers a PUT on a resource that already exists: ARM changes tags in place (the emulator
 * applies tags only, from `body.tags`) and answers 200 with the resource as `view` shows it.
 * While its create is still running (its client died before polling it out), the PUT joins that
 * create with an operation of its own, as ARM answers a PUT with an operation to follow; the
 * create finishes once, with whichever operation is polled out first.
 */
export function putExisting(
  ctx: EmulatorContext,
  request: Pick<OperationRequest, 'provider' | 'subscriptionId' | 'resourceId' | 'apiVersion'>,
  existing: ArmResource,
  body: Record<string, unknown> | undefined,
  view: (resource: ArmResource) => unknown,
): ArmResponse {
  const tags = body?.['tags'];
  if (typeof tags === 'object' && tags !== null && !Array.isArray(tags))
    existing.tags = Object.fromEntries(Object.entries(tags).map(([k, v]) => [k, String(v)]));
  if (!isProvisioning(existing)) return { status: 200, body: view(existing) };
  return acceptOperation(
    ctx,
    {
      ...request,
      kind: 'create',
      location: existing.location,
      polls: ctx.defaultOperationPolls,
    },
    200,
    view(existing),
  );
}

/** The error a long-running operation ends with (ARM's `error` of the operation status). */
export interface OperationError {
  readonly code: string;
  readonly message: string;
}

/**
 * Takes the `error` fault matching a request that starts a long-running operation. A `sync`
 * fault (the default) is thrown as its ArmError; an `async` one is returned, for the operation
 * to fail with; undefined when no error fault matches.
 */
export function takeOperationError(
  ctx: EmulatorContext,
  facts: RequestFacts,
): OperationError | undefined {
  const fault = ctx.faults.take(facts, ['error']);
  if (fault?.kind !== 'error') return undefined;
  if (fault.when !== 'async') throw new ArmError(fault.status, fault.code, fault.message);
  return { code: fault.code, message: fault.message };
}

/**
 * How many polls the operation a request starts reports InProgress: the matching `slow`
 * fault's count (taking it), else {@link EmulatorContext.defaultOperationPolls}.
 */
export function takeOperationPolls(ctx: EmulatorContext, facts: RequestFacts): number {
  const slow = ctx.faults.take(facts, ['slow']);
  return slow?.kind === 'slow' ? slow.polls : ctx.defaultOperationPolls;
}

/** A resource provider as its operation links name it. */
export interface OperationProvider {
  /** `Microsoft.Compute`. */
  readonly namespace: string;
  /** API version of the operation links when the request named none. */
  readonly defaultApiVersion: string;
}

/** A long-running operation a PUT or DELETE starts, and where ARM publishes its status. */
export interface OperationRequest {
  readonly provider: OperationProvider;
  readonly subscriptionId: string;
  readonly resourceId: string;
  readonly kind: ArmOperation['kind'];
  /** Region of the resource, lower case. */
  readonly location: string;
  /** The request's `api-version`, repeated in the operation links. */
  readonly apiVersion: string | undefined;
  /** Polls it answers InProgress before completing. */
  readonly polls: number;
  /** The error it ends with; undefined: it succeeds. */
  readonly error?: OperationError | undefined;
}

/**
 * Starts the operation and answers the request that started it: `status` (201 for a create,
 * 202 for a delete) with `body` and the operation headers ({@link operationHeaders}).
 */
export function acceptOperation(
  ctx: EmulatorContext,
  request: OperationRequest,
  status: number,
  body?: unknown,
): ArmResponse {
  const op = startOperation(ctx, request.resourceId, request.kind, request.polls, request.error);
  return {
    status,
    ...(body === undefined ? {} : { body }),
    headers: operationHeaders(
      ctx,
      request.subscriptionId,
      request.provider.namespace,
      request.location,
      op,
      request.apiVersion ?? request.provider.defaultApiVersion,
    ),
  };
}

/** Azure-AsyncOperation (and, for deletes, Location) headers of an operation, ARM's URL layout. */
export function operationHeaders(
  ctx: EmulatorContext,
  subscriptionId: string,
  namespace: string,
  location: string,
  op: ArmOperation,
  apiVersion: string,
): Record<string, string> {
  const base = `${ctx.baseUrl()}/subscriptions/${subscriptionId}/providers/${namespace}/locations/${location}`;
  const headers: Record<string, string> = {
    'azure-asyncoperation': `${base}/operations/${op.id}?api-version=${apiVersion}`,
  };
  if (op.kind === 'delete')
    headers['location'] = `${base}/operationResults/${op.id}?api-version=${apiVersion}`;
  return headers;
}

/** A page of a list: ARM's `{value, nextLink?}`, with `$skiptoken` paging. */
export function page(
  ctx: EmulatorContext,
  items: readonly unknown[],
  url: URL,
): { value: unknown[]; nextLink?: string } {
  const start = Number(url.searchParams.get('$skiptoken') ?? '0') || 0;
  const value = items.slice(start, start + ctx.pageSize);
  if (start + ctx.pageSize >= items.length) return { value };
  const next = new URL(url.toString());
  next.searchParams.set('$skiptoken', String(start + ctx.pageSize));
  return { value, nextLink: `${ctx.baseUrl()}${next.pathname}${next.search}` };
}

/** ARM ID of a resource in a resource group. */
export function resourceId(sub: string, rg: string, type: string, name: string): string {
  return `/subscriptions/${sub}/resourceGroups/${rg}/providers/${type}/${name}`;
}

/** The stored resource `type`/`name`, or ARM's 404 `ResourceNotFound` error (thrown). */
export function existingResource(
  ctx: EmulatorContext,
  sub: string,
  rg: string,
  type: string,
  name: string,
): ArmResource {
  const resource = ctx.state.resources.get(resourceId(sub, rg, type, name).toLowerCase());
  if (!resource) throw resourceNotFound(type, rg, name);
  return resource;
}
