/**
 * `Microsoft.Network/networkInterfaces`: create (validated, long-running), get, list, delete. A
 * NIC's subnet must exist (put in place with `putSubnet`; else ARM's 400
 * InvalidResourceReference), and a NIC attached to an existing VM cannot be deleted (NicInUse),
 * as in ARM.
 */
import { ArmError, invalidParameter } from './arm-error.js';
import {
  acceptOperation,
  existingResource,
  page,
  putExisting,
  resourceId,
  takeOperationError,
  takeOperationPolls,
  type ArmResponse,
  type EmulatorContext,
  type OperationProvider,
} from './context.js';
import type { RequestFacts } from './faults.js';
import type { ArmResource } from './state.js';

const NIC_TYPE = 'Microsoft.Network/networkInterfaces';
/** Operation links of Network requests (API version when the request named none). */
const NETWORK: OperationProvider = {
  namespace: 'Microsoft.Network',
  defaultApiVersion: '2024-05-01',
};
const SUBNET_ID =
  /^\/subscriptions\/[^/]+\/resourceGroups\/[^/]+\/providers\/Microsoft\.Network\/virtualNetworks\/[^/]+\/subnets\/[^/]+$/i;

type Json = Record<string, unknown>;
const obj = (v: unknown): Json | undefined =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : undefined;

let nextAddress = 4;

/** PUT networkInterfaces/{name}. */
export function putNetworkInterface(
  ctx: EmulatorContext,
  sub: string,
  rg: string,
  name: string,
  body: unknown,
  apiVersion: string | undefined,
): ArmResponse {
  const id = resourceId(sub, rg, NIC_TYPE, name);
  const nicBody = obj(body);
  if (!nicBody) throw new ArmError(400, 'InvalidRequestFormat', 'Cannot parse the request.');
  const location = typeof nicBody['location'] === 'string' ? nicBody['location'].toLowerCase() : '';
  if (!location)
    throw new ArmError(
      400,
      'LocationRequired',
      'The location property is required for this definition.',
    );
  const existing = ctx.state.resources.get(id.toLowerCase());
  if (existing)
    return putExisting(
      ctx,
      { provider: NETWORK, subscriptionId: sub, resourceId: id, apiVersion },
      existing,
      nicBody,
      (nic) => nic,
    );
  const props = obj(nicBody['properties']);
  const configs = props?.['ipConfigurations'];
  if (!Array.isArray(configs) || configs.length === 0)
    throw invalidParameter(
      'properties.ipConfigurations',
      'A network interface needs at least one IP configuration.',
    );
  const facts: RequestFacts = { method: 'PUT', resourceType: 'networkInterfaces', name };
  const error = takeOperationError(ctx, facts);
  const polls = takeOperationPolls(ctx, facts);
  const ipConfigurations = configs.map((c, i) => {
    const cfg = obj(c);
    const cfgName = typeof cfg?.['name'] === 'string' ? cfg['name'] : '';
    if (!cfgName)
      throw invalidParameter(
        `properties.ipConfigurations[${i}].name`,
        'An IP configuration needs a name.',
      );
    const subnetId = obj(obj(cfg?.['properties'])?.['subnet'])?.['id'];
    if (typeof subnetId !== 'string' || !SUBNET_ID.test(subnetId))
      throw new ArmError(
        400,
        'InvalidResourceReference',
        `Resource ${String(subnetId)} referenced by resource ${id} was not found or is not a subnet ID.`,
      );
    const missing = missingReference(ctx, subnetId);
    if (missing !== undefined)
      throw new ArmError(
        400,
        'InvalidResourceReference',
        `Resource ${missing} referenced by resource ${id} was not found. Please make sure that the referenced resource exists, and that both resources are in the same region.`,
      );
    const address = nextAddress++;
    return {
      ...cfg,
      id: `${id}/ipConfigurations/${cfgName}`,
      name: cfgName,
      properties: {
        ...obj(cfg?.['properties']),
        provisioningState: 'Succeeded',
        privateIPAddress: `10.224.${Math.floor(address / 250)}.${address % 250}`,
        privateIPAllocationMethod: 'Dynamic',
        privateIPAddressVersion: 'IPv4',
        primary: i === 0,
      },
    };
  });
  const nic: ArmResource = {
    ...structuredClone(nicBody),
    id,
    name,
    type: NIC_TYPE,
    location,
    properties: {
      ...structuredClone(props as Json),
      ipConfigurations,
      provisioningState: 'Updating',
      macAddress: `00-0D-3A-${hex2()}-${hex2()}-${hex2()}`,
      nicType: 'Standard',
    },
  };
  ctx.state.resources.set(id.toLowerCase(), nic);
  return acceptOperation(
    ctx,
    {
      provider: NETWORK,
      subscriptionId: sub,
      resourceId: id,
      kind: 'create',
      location,
      apiVersion,
      polls,
      error,
    },
    201,
    nic,
  );
}

/**
 * What ARM names as missing for a NIC's subnet reference: the virtual network when the emulator
 * holds no subnet of it, else the subnet when it is not held; undefined when the subnet exists.
 */
function missingReference(ctx: EmulatorContext, subnetId: string): string | undefined {
  if (ctx.state.subnets.get(subnetId, []) !== undefined) return undefined;
  const vnetId = subnetId.replace(/\/subnets\/[^/]+$/i, '');
  return ctx.state.subnets.hasNetwork(vnetId) ? subnetId : vnetId;
}

function hex2(): string {
  return Math.floor(Math.random() * 256)
    .toString(16)
    .toUpperCase()
    .padStart(2, '0');
}

/** GET networkInterfaces/{name}. */
export function getNetworkInterface(
  ctx: EmulatorContext,
  sub: string,
  rg: string,
  name: string,
): ArmResponse {
  return { status: 200, body: existingResource(ctx, sub, rg, NIC_TYPE, name) };
}

/** GET networkInterfaces (one resource group), paged. */
export function listNetworkInterfaces(ctx: EmulatorContext, rg: string, url: URL): ArmResponse {
  return { status: 200, body: page(ctx, ctx.state.networkInterfaces(rg), url) };
}

/** DELETE networkInterfaces/{name}: 204 when absent, 400 NicInUse while a VM uses it. */
export function deleteNetworkInterface(
  ctx: EmulatorContext,
  sub: string,
  rg: string,
  name: string,
  apiVersion: string | undefined,
): ArmResponse {
  const id = resourceId(sub, rg, NIC_TYPE, name);
  const nic = ctx.state.resources.get(id.toLowerCase());
  if (!nic) return { status: 204 };
  const facts: RequestFacts = { method: 'DELETE', resourceType: 'networkInterfaces', name };
  const error = takeOperationError(ctx, facts);
  const owner = obj(nic.properties['virtualMachine'])?.['id'];
  if (typeof owner === 'string' && ctx.state.resources.has(owner.toLowerCase()))
    throw new ArmError(
      400,
      'NicInUse',
      `Network Interface ${id} is used by existing resource ${owner}. In order to delete the network interface, it must be dissociated from the resource.`,
    );
  nic.properties.provisioningState = 'Deleting';
  return acceptOperation(
    ctx,
    {
      provider: NETWORK,
      subscriptionId: sub,
      resourceId: id,
      kind: 'delete',
      location: nic.location,
      apiVersion,
      polls: ctx.defaultOperationPolls,
      error,
    },
    202,
  );
}
