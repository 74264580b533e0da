/**
 * The emulator's HTTP(S) server: routing of the ARM subset, bearer-token and api-version checks,
 * throttling faults, the retail prices endpoint and the `/_emulator/*` control API.
 *
 * Control API (JSON):
 * - `GET /_emulator/state`: `{virtualMachines, networkInterfaces, disks}` (ARM bodies).
 * - `GET /_emulator/requests`: the request log.
 * - `GET|POST|DELETE /_emulator/faults`, `DELETE /_emulator/faults/{id}`: list, add (body: a
 *   Fault; answers `{id}`), clear, remove.
 * - `PUT /_emulator/quota`: `{families?: {<armFamily>: vCPUs}, lowPriority?: n|null, totalRegional?: n|null}`.
 * - `POST /_emulator/community-gallery-versions`: publishes an image version (body: a
 *   {@link CommunityGalleryImageVersionSpec}).
 * - `PUT /_emulator/skus`: puts a VM size on sale (body: a {@link ResourceSku}); `DELETE
 *   /_emulator/skus/{name}`: withdraws one.
 * - `PUT /_emulator/subnets`: puts a subnet in place (body: a {@link SubnetSpec}); `DELETE
 *   /_emulator/subnets/{url-encoded subnet ID}`: removes one.
 * - `PUT /_emulator/disk-encryption-sets`: puts a disk encryption set in place (body: a
 *   {@link DiskEncryptionSetSpec}); `DELETE /_emulator/disk-encryption-sets/{url-encoded ID}`:
 *   removes one.
 */
import {
  createServer as createHttpServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { ArmError } from './arm-error.js';
import {
  getCommunityGalleryImageVersion,
  listCommunityGalleryImageVersions,
  type CommunityGalleryImageVersionSpec,
} from './community-galleries.js';
import {
  deleteDisk,
  deleteVirtualMachine,
  getDisk,
  getVirtualMachine,
  listDisks,
  listVirtualMachines,
  putVirtualMachine,
} from './compute.js';
import type { ArmResponse, EmulatorContext, VmBootHook } from './context.js';
import { getDiskEncryptionSet, type DiskEncryptionSetSpec } from './disk-encryption-sets.js';
import { Faults, type Fault } from './faults.js';
import {
  deleteNetworkInterface,
  getNetworkInterface,
  listNetworkInterfaces,
  putNetworkInterface,
} from './network.js';
import { finishUnpolledOperations, getOperationResult, getOperationStatus } from './operations.js';
import type { ResourceSku } from './resource-skus.js';
import { shippedResourceSkus } from './shipped-skus.js';
import { SkuCatalog } from './sku-catalog.js';
import {
  defaultOnDemandPrices,
  queryRetailPrices,
  type PriceTable,
  type RetailPrices,
} from './retail-prices.js';
import { EmulatorState } from './state.js';
import { getSubnet, type SubnetSpec } from './subnets.js';
import { generateTlsIdentity } from './tls.js';

/** Options of {@link startArmEmulator}. */
export interface ArmEmulatorOptions {
  /** TCP port; default 0 (a free port). */
  readonly port?: number;
  /** Default `127.0.0.1`. */
  readonly host?: string;
  /**
   * Serve HTTPS with a fresh self-signed certificate (default true). The Azure SDKs' bearer-token
   * policy refuses `http://` URLs, so SDK clients need TLS; plain HTTP suits other clients.
   */
  readonly tls?: boolean;
  /**
   * VM sizes sold at start; default: the whole catalog shipped in @karpenter-ts/provider-azure,
   * where it offers each size ({@link shippedResourceSkus}). Change it later through `skus`.
   */
  readonly skus?: readonly ResourceSku[];
  /** Prices of the retail endpoint; defaults in retail-prices.ts. */
  readonly prices?: { onDemand?: PriceTable; spot?: PriceTable; spotFraction?: number };
  /** Polls a long-running operation answers InProgress before completing; default 1. */
  readonly defaultOperationPolls?: number;
  /**
   * Milliseconds after which an operation nobody polls (its client died) finishes on its own, as
   * ARM finishes accepted operations; checked once a second; default 30,000; `null`: never.
   */
  readonly unpolledOperationMs?: number | null;
  /** Items per list page (ARM lists and retail prices); default 100. */
  readonly pageSize?: number;
  /** Called when a VM finishes provisioning (e.g. to register its Node). */
  readonly onVmBooted?: VmBootHook;
}

/** A running emulator. */
export interface ArmEmulator {
  /** Base URL, e.g. `https://127.0.0.1:41234` (no trailing slash). */
  readonly url: string;
  /** PEM certificate to trust (TLS mode), else undefined. */
  readonly ca: string | undefined;
  readonly state: EmulatorState;
  readonly faults: Faults;
  /** The VM sizes sold now (list answers and VM create validation); tests may change it. */
  readonly skus: SkuCatalog;
  /** Sets core quota limits (vCPUs); `null` removes a limit. */
  setQuota(limits: {
    families?: Record<string, number | null>;
    lowPriority?: number | null;
    totalRegional?: number | null;
  }): void;
  /**
   * Publishes a community gallery image version (a new node image); an existing version of that
   * name is replaced. Raises ArmError for a malformed name or date.
   */
  publishImageVersion(spec: CommunityGalleryImageVersionSpec): void;
  /** Removes a community gallery image version; false when it did not exist. */
  removeImageVersion(gallery: string, image: string, version: string): boolean;
  /**
   * Puts a subnet in place (its virtual network exists while it holds a subnet); one of the same
   * ID is replaced. Raises ArmError for a malformed ID or address prefix.
   */
  putSubnet(spec: SubnetSpec): void;
  /** Removes a subnet; false when there was none. */
  removeSubnet(id: string): boolean;
  /**
   * Puts a disk encryption set in place (one of the same ID is replaced). Raises ArmError for a
   * malformed ID, encryption type or key URL.
   */
  putDiskEncryptionSet(spec: DiskEncryptionSetSpec): void;
  /** Removes a disk encryption set; false when there was none. */
  removeDiskEncryptionSet(id: string): boolean;
  /** Stops listening and closes open connections. */
  stop(): Promise<void>;
}

const ARM_PATH =
  /^\/subscriptions\/([^/]+)\/resourcegroups\/([^/]+)\/providers\/(microsoft\.compute|microsoft\.network)\/([^/]+)(?:\/([^/]+))?$/i;
const OPERATION_PATH =
  /^\/subscriptions\/([^/]+)\/providers\/(microsoft\.compute|microsoft\.network)\/locations\/([^/]+)\/(operations|operationresults)\/([^/]+)$/i;
const SUBNET_PATH =
  /^\/subscriptions\/([^/]+)\/resourcegroups\/([^/]+)\/providers\/microsoft\.network\/virtualnetworks\/([^/]+)\/subnets\/([^/]+)$/i;
const SKUS_PATH = /^\/subscriptions\/([^/]+)\/providers\/microsoft\.compute\/skus$/i;
const GALLERY_VERSIONS_PATH =
  /^\/subscriptions\/[^/]+\/providers\/microsoft\.compute\/locations\/([^/]+)\/communitygalleries\/([^/]+)\/images\/([^/]+)\/versions(?:\/([^/]+))?$/i;

async function readBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new ArmError(
      400,
      'InvalidRequestContent',
      'The request content was invalid and could not be deserialized.',
    );
  }
}

/** Starts an emulator; resolves once it listens. */
export async function startArmEmulator(options: ArmEmulatorOptions = {}): Promise<ArmEmulator> {
  const state = new EmulatorState();
  const faults = new Faults();
  const initialSkus = options.skus;
  const skus = new SkuCatalog(() => initialSkus ?? shippedResourceSkus());
  const prices: RetailPrices = {
    onDemand: options.prices?.onDemand ?? defaultOnDemandPrices(),
    spot: options.prices?.spot ?? {},
    spotFraction: options.prices?.spotFraction ?? 0.2,
  };
  let baseUrl = '';
  const ctx: EmulatorContext = {
    state,
    faults,
    skus,
    baseUrl: () => baseUrl,
    defaultOperationPolls: options.defaultOperationPolls ?? 1,
    unpolledOperationMs:
      options.unpolledOperationMs === null ? undefined : (options.unpolledOperationMs ?? 30_000),
    pageSize: options.pageSize ?? 100,
    onVmBooted: options.onVmBooted,
    secrets: new Map(),
  };

  const handler = (req: IncomingMessage, res: ServerResponse): void => {
    void handle(ctx, prices, req).then(
      (answer) => send(req, res, state, answer),
      (err: unknown) => {
        const e =
          err instanceof ArmError
            ? err
            : new ArmError(
                500,
                'InternalServerError',
                err instanceof Error ? err.message : String(err),
              );
        send(req, res, state, { status: e.status, body: e.body(), headers: e.headers });
      },
    );
  };
  const tls = options.tls ?? true;
  const identity = tls ? await generateTlsIdentity() : undefined;
  const server: Server = identity
    ? createHttpsServer({ key: identity.key, cert: identity.cert }, handler)
    : createHttpServer(handler);
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const sweep = setInterval(() => {
    // Boot hook failures are kept in state.bootErrors; anything else is an emulator defect.
    finishUnpolledOperations(ctx, Date.now()).catch((e: unknown) => {
      process.stderr.write(`arm-emulator: finishing an unpolled operation failed: ${String(e)}\n`);
    });
  }, 1000);
  sweep.unref();
  baseUrl = `${tls ? 'https' : 'http'}://${host.includes(':') ? `[${host}]` : host}:${port}`;

  return {
    url: baseUrl,
    ca: identity?.cert,
    state,
    faults,
    skus,
    setQuota: (limits) => setQuota(state, limits),
    publishImageVersion: (spec) => state.communityGalleries.publish(spec),
    removeImageVersion: (gallery, image, version) =>
      state.communityGalleries.remove(gallery, image, version),
    putSubnet: (spec) => state.subnets.put(spec),
    removeSubnet: (id) => state.subnets.remove(id),
    putDiskEncryptionSet: (spec) => state.diskEncryptionSets.put(spec),
    removeDiskEncryptionSet: (id) => state.diskEncryptionSets.remove(id),
    stop: () =>
      new Promise<void>((resolve, reject) => {
        clearInterval(sweep);
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      }),
  };
}

function setQuota(
  state: EmulatorState,
  limits: {
    families?: Record<string, number | null>;
    lowPriority?: number | null;
    totalRegional?: number | null;
  },
): void {
  const check = (field: string, v: unknown): void => {
    if (v !== null && !(typeof v === 'number' && Number.isInteger(v) && v >= 0))
      throw new ArmError(
        400,
        'InvalidParameter',
        `${field}: must be a non-negative integer or null`,
      );
  };
  for (const [family, limit] of Object.entries(limits.families ?? {})) {
    check(`families.${family}`, limit);
    if (limit === null) state.quota.families.delete(family);
    else state.quota.families.set(family, limit);
  }
  if (limits.lowPriority !== undefined) {
    check('lowPriority', limits.lowPriority);
    state.quota.lowPriority = limits.lowPriority ?? undefined;
  }
  if (limits.totalRegional !== undefined) {
    check('totalRegional', limits.totalRegional);
    state.quota.totalRegional = limits.totalRegional ?? undefined;
  }
}

function send(
  req: IncomingMessage,
  res: ServerResponse,
  state: EmulatorState,
  answer: ArmResponse,
): void {
  const body = answer.body === undefined ? '' : JSON.stringify(answer.body);
  const errorCode = (answer.body as { error?: { code?: string } } | undefined)?.error?.code;
  state.requests.push({
    method: req.method ?? '',
    url: req.url ?? '',
    status: answer.status,
    ...(errorCode ? { errorCode } : {}),
  });
  res.writeHead(answer.status, {
    ...(body ? { 'content-type': 'application/json; charset=utf-8' } : {}),
    'x-ms-request-id': crypto.randomUUID(),
    ...answer.headers,
  });
  res.end(body);
}

async function handle(
  ctx: EmulatorContext,
  prices: RetailPrices,
  req: IncomingMessage,
): Promise<ArmResponse> {
  const url = new URL(req.url ?? '/', ctx.baseUrl());
  const path = url.pathname.replace(/\/+$/, '');
  const method = (req.method ?? 'GET').toUpperCase();

  if (path.startsWith('/_emulator/')) return control(ctx, method, path, await readBody(req));

  const arm = ARM_PATH.exec(path);
  const opm = OPERATION_PATH.exec(path);
  const gallery = GALLERY_VERSIONS_PATH.exec(path);
  const subnet = SUBNET_PATH.exec(path);
  const resourceType = arm
    ? (arm[4] as string)
    : subnet
      ? 'subnets'
      : opm
        ? 'operations'
        : SKUS_PATH.test(path)
          ? 'skus'
          : gallery
            ? 'communityGalleryImageVersions'
            : path === '/api/retail/prices'
              ? 'prices'
              : '';
  const name = arm?.[5] ?? subnet?.[4];
  const throttle = ctx.faults.take({ method, resourceType, ...(name ? { name } : {}) }, [
    'throttle',
  ]);
  if (throttle?.kind === 'throttle') {
    throw new ArmError(
      429,
      'TooManyRequests',
      'The request is being throttled as the limit has been reached for operation type - Write_30Min. For more information, see - https://aka.ms/throttling',
      { 'retry-after': String(throttle.retryAfterSeconds) },
    );
  }

  if (path === '/api/retail/prices' && method === 'GET') return queryRetailPrices(ctx, prices, url);
  if (!arm && !opm && !gallery && !subnet && !SKUS_PATH.test(path))
    throw new ArmError(404, 'NotFound', `The emulator does not serve ${method} ${path}.`);

  const auth = req.headers.authorization ?? '';
  if (!/^Bearer \S+/.test(auth))
    throw new ArmError(
      401,
      'AuthenticationFailed',
      "Authentication failed. The 'Authorization' header is missing or not a bearer token.",
    );
  const apiVersion = url.searchParams.get('api-version') ?? undefined;
  if (!apiVersion)
    throw new ArmError(
      400,
      'MissingApiVersionParameter',
      'The api-version query parameter (?api-version=) is required for all requests.',
    );

  if (opm) {
    if (method !== 'GET')
      throw new ArmError(405, 'MethodNotAllowed', `${method} is not allowed on operations.`);
    const id = opm[5] as string;
    return opm[4]?.toLowerCase() === 'operations'
      ? getOperationStatus(ctx, id)
      : getOperationResult(ctx, id);
  }
  if (gallery) {
    if (method !== 'GET')
      throw new ArmError(
        405,
        'MethodNotAllowed',
        `${method} is not allowed on community galleries.`,
      );
    const [, location, name, image, version] = gallery as unknown as [
      string,
      string,
      string,
      string,
      string | undefined,
    ];
    return version === undefined
      ? listCommunityGalleryImageVersions(ctx, location, name, image, url)
      : getCommunityGalleryImageVersion(ctx, location, name, image, version);
  }
  if (subnet) {
    if (method !== 'GET')
      throw new ArmError(
        405,
        'MethodNotAllowed',
        `The emulator serves only GET on subnets (put them in place with putSubnet).`,
      );
    const [, sub, rg, vnet, subnetName] = subnet as unknown as [
      string,
      string,
      string,
      string,
      string,
    ];
    return getSubnet(ctx, sub, rg, vnet, subnetName);
  }
  if (!arm) {
    const location = /location\s+eq\s+'([^']+)'/i
      .exec(url.searchParams.get('$filter') ?? '')?.[1]
      ?.toLowerCase();
    const failure = ctx.faults.take({ method, resourceType: 'skus' }, ['error']);
    if (failure?.kind === 'error')
      throw new ArmError(failure.status, failure.code, failure.message);
    return { status: 200, body: { value: ctx.skus.list(location) } };
  }
  const [, sub, rg, , type] = arm as unknown as [string, string, string, string, string];
  const t = type.toLowerCase();
  const body = method === 'PUT' ? await readBody(req) : undefined;
  if (t === 'virtualmachines') {
    if (!name && method === 'GET') return listVirtualMachines(ctx, rg, url);
    if (name && method === 'PUT') return putVirtualMachine(ctx, sub, rg, name, body, apiVersion);
    if (name && method === 'GET') return getVirtualMachine(ctx, sub, rg, name);
    if (name && method === 'DELETE') return deleteVirtualMachine(ctx, sub, rg, name, apiVersion);
  } else if (t === 'networkinterfaces') {
    if (!name && method === 'GET') return listNetworkInterfaces(ctx, rg, url);
    if (name && method === 'PUT') return putNetworkInterface(ctx, sub, rg, name, body, apiVersion);
    if (name && method === 'GET') return getNetworkInterface(ctx, sub, rg, name);
    if (name && method === 'DELETE') return deleteNetworkInterface(ctx, sub, rg, name, apiVersion);
  } else if (t === 'diskencryptionsets') {
    if (name && method === 'GET') return getDiskEncryptionSet(ctx, sub, rg, name);
  } else if (t === 'disks') {
    if (!name && method === 'GET') return listDisks(ctx, rg, url);
    if (name && method === 'GET') return getDisk(ctx, sub, rg, name);
    if (name && method === 'DELETE') return deleteDisk(ctx, sub, rg, name, apiVersion);
  }
  throw new ArmError(
    400,
    'InvalidResourceType',
    `The emulator does not serve ${method} on resource type '${type}'.`,
  );
}

async function control(
  ctx: EmulatorContext,
  method: string,
  path: string,
  body: unknown,
): Promise<ArmResponse> {
  const { state, faults } = ctx;
  if (path === '/_emulator/state' && method === 'GET')
    return {
      status: 200,
      body: {
        virtualMachines: state.virtualMachines(),
        networkInterfaces: state.networkInterfaces(),
        disks: state.disks(),
      },
    };
  if (path === '/_emulator/requests' && method === 'GET')
    return { status: 200, body: state.requests };
  if (path === '/_emulator/faults') {
    if (method === 'GET') return { status: 200, body: faults.list() };
    if (method === 'DELETE') {
      faults.clear();
      return { status: 204 };
    }
    if (method === 'POST') {
      try {
        return { status: 201, body: { id: faults.add(body as Fault) } };
      } catch (e) {
        throw new ArmError(400, 'InvalidFault', (e as Error).message);
      }
    }
  }
  const one = /^\/_emulator\/faults\/([^/]+)$/.exec(path);
  if (one && method === 'DELETE') {
    if (!faults.remove(one[1] as string))
      throw new ArmError(404, 'NotFound', `No fault ${one[1]}.`);
    return { status: 204 };
  }
  if (path === '/_emulator/community-gallery-versions' && method === 'POST') {
    state.communityGalleries.publish((body ?? {}) as CommunityGalleryImageVersionSpec);
    return { status: 204 };
  }
  if (path === '/_emulator/skus' && method === 'PUT') {
    try {
      ctx.skus.sell(body as ResourceSku);
    } catch (e) {
      throw new ArmError(400, 'InvalidSku', (e as Error).message);
    }
    return { status: 204 };
  }
  const sku = /^\/_emulator\/skus\/([^/]+)$/.exec(path);
  if (sku && method === 'DELETE') {
    if (!ctx.skus.stopSelling(decodeURIComponent(sku[1] as string)))
      throw new ArmError(404, 'NotFound', `No VM size ${sku[1]} is sold.`);
    return { status: 204 };
  }
  if (path === '/_emulator/subnets' && method === 'PUT') {
    state.subnets.put((body ?? {}) as SubnetSpec);
    return { status: 204 };
  }
  const subnet = /^\/_emulator\/subnets\/([^/]+)$/.exec(path);
  if (subnet && method === 'DELETE') {
    const id = decodeURIComponent(subnet[1] as string);
    if (!state.subnets.remove(id)) throw new ArmError(404, 'NotFound', `No subnet ${id}.`);
    return { status: 204 };
  }
  if (path === '/_emulator/disk-encryption-sets' && method === 'PUT') {
    state.diskEncryptionSets.put((body ?? {}) as DiskEncryptionSetSpec);
    return { status: 204 };
  }
  const des = /^\/_emulator\/disk-encryption-sets\/([^/]+)$/.exec(path);
  if (des && method === 'DELETE') {
    const id = decodeURIComponent(des[1] as string);
    if (!state.diskEncryptionSets.remove(id))
      throw new ArmError(404, 'NotFound', `No disk encryption set ${id}.`);
    return { status: 204 };
  }
  if (path === '/_emulator/quota' && method === 'PUT') {
    setQuota(state, (body ?? {}) as Parameters<typeof setQuota>[1]);
    return { status: 204 };
  }
  throw new ArmError(404, 'NotFound', `No control endpoint ${method} ${path}.`);
}
