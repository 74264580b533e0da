/**
 * The node IP family, derived as upstream Karpenter providers derive it: from the cluster DNS
 * service IP (`DNS_SERVICE_IP`, the kube-dns/CoreDNS ClusterIP) — an IPv6 address means an IPv6
 * cluster, anything else (an IPv4 address, or no DNS IP configured) IPv4. The bootstrap pins the
 * kubelet to that family (see custom-data.ts).
 *
 * AKS's Karpenter supports IPv4 clusters only (upstream `Azure/karpenter-provider-azure`: no IPv6
 * or dual-stack; its load-balancer code skips IPv6 pools), so an IPv6 DNS service IP is refused by
 * {@link dnsServiceIPProblem} rather than launching nodes that could not work.
 */
import { isIP } from 'node:net';

/** A node IP family, as the bootstrap's `NODE_IP_FAMILY` spells it. */
export type NodeIPFamily = 'ipv4' | 'ipv6';

/** The families this provider launches nodes for. */
export const SupportedNodeIPFamilies: readonly NodeIPFamily[] = ['ipv4'];

/**
 * The IP family of a cluster whose DNS service IP is `dnsServiceIP`: `ipv6` for an IPv6 address,
 * else `ipv4` (also when unset, as upstream defaults). Raises Error when it is set but not an
 * IP address.
 */
export function nodeIPFamily(dnsServiceIP: string | undefined): NodeIPFamily {
  if (dnsServiceIP === undefined || dnsServiceIP === '') return 'ipv4';
  const version = isIP(dnsServiceIP);
  if (version === 0) throw new Error(`${JSON.stringify(dnsServiceIP)} is not an IP address`);
  return version === 6 ? 'ipv6' : 'ipv4';
}

/**
 * Why this provider cannot use `dnsServiceIP` (a sentence naming the rule), or undefined when it
 * can: it must be an IPv4 address, since an IPv6 one means an IPv6 or dual-stack cluster, which
 * AKS's Karpenter does not support.
 */
export function dnsServiceIPProblem(dnsServiceIP: string): string | undefined {
  let family: NodeIPFamily;
  try {
    family = nodeIPFamily(dnsServiceIP);
  } catch {
    return `must be an IPv4 address, got ${JSON.stringify(dnsServiceIP)}`;
  }
  if (!SupportedNodeIPFamilies.includes(family))
    return `is an IPv6 address (${dnsServiceIP}), which means an IPv6 or dual-stack cluster: the Azure provider supports IPv4 clusters only, as AKS's Karpenter does`;
  return undefined;
}
