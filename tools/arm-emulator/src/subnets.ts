/**
 * `Microsoft.Network/virtualNetworks/{vnet}/subnets/{subnet}`: GET, in ARM's shape. Subnets are
 * put in place by tests ({@link Subnets.put}); a virtual network exists while it holds a subnet.
 * A subnet's `ipConfigurations` are the IP configurations of the emulator's NICs that name it,
 * as ARM lists them.
 *
 * The two 404s differ as in ARM: a virtual network that does not exist is the resource manager's
 * `ResourceNotFound`; a subnet missing from an existing network is the network provider's
 * `NotFound` (`Resource <id> not found.`).
 */
import { ArmError, resourceNotFound } from './arm-error.js';
import type { ArmResponse, EmulatorContext } from './context.js';
import type { ArmResource } from './state.js';

/** The ARM `type` of a subnet. */
export const SUBNET_TYPE = 'Microsoft.Network/virtualNetworks/subnets';
const SUBNET_ID =
  /^\/subscriptions\/([^/]+)\/resourceGroups\/([^/]+)\/providers\/Microsoft\.Network\/virtualNetworks\/([^/]+)\/subnets\/([^/]+)$/i;
const IPV4_CIDR = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})\/(\d{1,2})$/;

/** A subnet to put in place. */
export interface SubnetSpec {
  /** Subnet ARM ID (`/subscriptions/<s>/resourceGroups/<rg>/providers/Microsoft.Network/virtualNetworks/<vnet>/subnets/<name>`). */
  readonly id: string;
  /** IPv4 CIDR; default `10.224.0.0/16` (AKS's default node subnet, where the emulator's NIC addresses fall). */
  readonly addressPrefix?: string;
}

/** A subnet as ARM returns it. */
export interface ArmSubnet {
  readonly id: string;
  readonly name: string;
  readonly type: typeof SUBNET_TYPE;
  readonly etag: string;
  readonly properties: {
    readonly provisioningState: 'Succeeded';
    readonly addressPrefix: string;
    readonly ipConfigurations?: readonly { readonly id: string }[];
    readonly delegations: readonly unknown[];
    readonly privateEndpointNetworkPolicies: string;
    readonly privateLinkServiceNetworkPolicies: string;
  };
}

/** The subnets of the emulator, by ID (lower case). */
export class Subnets {
  readonly #byId = new Map<string, Omit<ArmSubnet, 'properties'> & { addressPrefix: string }>();

  /**
   * Puts a subnet in place (replacing one of the same ID, case-insensitive). Test control, not
   * an ARM call. Raises ArmError 400 `InvalidParameter` for an ID that is not a subnet ARM ID or
   * an address prefix that is not an IPv4 CIDR.
   */
  put(spec: SubnetSpec): void {
    const id = typeof spec?.id === 'string' ? spec.id : '';
    const m = SUBNET_ID.exec(id);
    if (!m)
      throw new ArmError(
        400,
        'InvalidParameter',
        `${JSON.stringify(id)} is not a subnet ARM ID (/subscriptions/<s>/resourceGroups/<rg>/providers/Microsoft.Network/virtualNetworks/<vnet>/subnets/<name>).`,
      );
    const addressPrefix = spec.addressPrefix ?? '10.224.0.0/16';
    const cidr = IPV4_CIDR.exec(addressPrefix);
    if (!cidr || cidr.slice(1, 5).some((o) => Number(o) > 255) || Number(cidr[5]) > 32)
      throw new ArmError(
        400,
        'InvalidParameter',
        `addressPrefix ${JSON.stringify(addressPrefix)} is not an IPv4 CIDR.`,
      );
    this.#byId.set(id.toLowerCase(), {
      id,
      name: m[4] as string,
      type: SUBNET_TYPE,
      etag: `W/"${crypto.randomUUID()}"`,
      addressPrefix,
    });
  }

  /** Removes a subnet; false when there was none. Test control. */
  remove(id: string): boolean {
    return this.#byId.delete(id.toLowerCase());
  }

  /** IDs of the subnets held, as put. */
  ids(): string[] {
    return [...this.#byId.values()].map((s) => s.id);
  }

  /** The subnet with its `ipConfigurations` from `nics`, or undefined. */
  get(id: string, nics: readonly ArmResource[]): ArmSubnet | undefined {
    const s = this.#byId.get(id.toLowerCase());
    if (!s) return undefined;
    const key = s.id.toLowerCase();
    const ipConfigurations = nics.flatMap((nic) => {
      const configs = nic.properties['ipConfigurations'];
      if (!Array.isArray(configs)) return [];
      return configs.flatMap((c: { id?: unknown; properties?: { subnet?: { id?: unknown } } }) =>
        typeof c.id === 'string' && String(c.properties?.subnet?.id ?? '').toLowerCase() === key
          ? [{ id: c.id }]
          : [],
      );
    });
    return {
      id: s.id,
      name: s.name,
      type: s.type,
      etag: s.etag,
      properties: {
        provisioningState: 'Succeeded',
        addressPrefix: s.addressPrefix,
        ...(ipConfigurations.length > 0 ? { ipConfigurations } : {}),
        delegations: [],
        privateEndpointNetworkPolicies: 'Disabled',
        privateLinkServiceNetworkPolicies: 'Enabled',
      },
    };
  }

  /** Whether a subnet of virtual network `vnetId` (case-insensitive) is held. */
  hasNetwork(vnetId: string): boolean {
    const prefix = `${vnetId.toLowerCase()}/subnets/`;
    return [...this.#byId.keys()].some((k) => k.startsWith(prefix));
  }
}

/** GET virtualNetworks/{vnet}/subnets/{subnet}. */
export function getSubnet(
  ctx: EmulatorContext,
  sub: string,
  rg: string,
  vnet: string,
  name: string,
): ArmResponse {
  const failure = ctx.faults.take({ method: 'GET', resourceType: 'subnets', name }, ['error']);
  if (failure?.kind === 'error') throw new ArmError(failure.status, failure.code, failure.message);
  const vnetId = `/subscriptions/${sub}/resourceGroups/${rg}/providers/Microsoft.Network/virtualNetworks/${vnet}`;
  const id = `${vnetId}/subnets/${name}`;
  const subnet = ctx.state.subnets.get(id, ctx.state.networkInterfaces());
  if (subnet) return { status: 200, body: subnet };
  if (!ctx.state.subnets.hasNetwork(vnetId))
    throw resourceNotFound('Microsoft.Network/virtualNetworks', rg, vnet);
  throw new ArmError(404, 'NotFound', `Resource ${id} not found.`);
}
