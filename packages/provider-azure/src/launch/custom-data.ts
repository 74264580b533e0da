/**
 * Bootstrap custom data: the script a VM runs at first boot to join the cluster. It carries the
 * kubelet's node labels, taints (`karpenter.sh/unregistered`, the node claim's taints and startup
 * taints), max pods, kube-reserved and eviction threshold, the API server endpoint, the cluster
 * DNS IP, the node IP family and the bootstrap token.
 *
 * The node IP family (`NODE_IP_FAMILY`, see ip-family.ts) is pinned with kubelet's `--node-ip`
 * set to the family's unspecified address: `0.0.0.0` makes the kubelet take the node's default
 * IPv4 address (and, with an external cloud provider, leaves the cloud's IPv4-first addresses
 * as they are), `::` would prefer the default IPv6 address (kubelet `--node-ip` reference). The
 * provider only launches IPv4 nodes today.
 *
 * This is karpenter-ts's own, minimal bootstrap contract, not AKS's node bootstrap (AKS's
 * scriptless bootstrap drives a large set of CSE variables baked into its node images). The
 * values a script needs are written as a `key=value` environment file the image's kubelet unit
 * reads, so they can be read back ({@link parseBootstrapEnv}) by tests and emulators.
 *
 * The bootstrap token is a secret: it is only ever placed in custom data (which ARM never returns
 * on GET) and never logged.
 */
import { Taints, type Taint } from '@karpenter-ts/api';
import type { NodeIPFamily } from './ip-family.js';

/** What the bootstrap needs. */
export interface BootstrapInputs {
  readonly clusterName: string;
  readonly clusterEndpoint: string;
  readonly bootstrapToken: string;
  /** Labels the kubelet registers the node with. */
  readonly labels: Readonly<Record<string, string>>;
  readonly taints: readonly Taint[];
  readonly startupTaints: readonly Taint[];
  readonly maxPods: number;
  /** Kube-reserved cpu in millicores and memory in bytes. */
  readonly kubeReserved: { readonly cpu: number; readonly memory: number };
  /** Hard eviction `memory.available`, bytes. */
  readonly evictionMemoryAvailable: number;
  /** Kubernetes DNS service IP (`DNS_SERVICE_IP`). */
  readonly clusterDNS?: string;
  /** The node IP family (derived from the DNS service IP, see `nodeIPFamily`). */
  readonly nodeIPFamily: NodeIPFamily;
  /** Node image family (`Ubuntu`, `AzureLinux`, ...). */
  readonly imageFamily: string;
}

const ENV_START = '# --- karpenter-ts bootstrap env ---';
const ENV_END = '# --- end ---';

function taintFlag(t: Taint): string {
  return `${t.key}${t.value ? `=${t.value}` : ''}:${t.effect}`;
}

function quote(v: string): string {
  return `'${v.replaceAll("'", "'\\''")}'`;
}

/** kubelet `--node-ip` value per family: the unspecified address selects that family's default. */
const NodeIPFlag: Readonly<Record<NodeIPFamily, string>> = { ipv4: '0.0.0.0', ipv6: '::' };

/** The kubelet flags the node runs with (labels sorted by key, taints in order). */
export function kubeletFlags(inputs: BootstrapInputs): string[] {
  const labels = Object.entries(inputs.labels)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join(',');
  // Upstream registers every node with karpenter.sh/unregistered until the node claim's
  // registration removes it, so no pod lands before labels and taints are synced.
  const all = [Taints.Unregistered, ...inputs.taints, ...inputs.startupTaints];
  const taints = [...new Set(all.map(taintFlag))].join(',');
  const mi = (bytes: number): string => `${Math.floor(bytes / 2 ** 20)}Mi`;
  return [
    `--max-pods=${inputs.maxPods}`,
    `--node-labels=${labels}`,
    ...(taints ? [`--register-with-taints=${taints}`] : []),
    `--kube-reserved=cpu=${inputs.kubeReserved.cpu}m,memory=${mi(inputs.kubeReserved.memory)}`,
    '--system-reserved=cpu=0m,memory=0Mi',
    `--eviction-hard=memory.available<${mi(inputs.evictionMemoryAvailable)}`,
    ...(inputs.clusterDNS ? [`--cluster-dns=${inputs.clusterDNS}`] : []),
    `--node-ip=${NodeIPFlag[inputs.nodeIPFamily]}`,
  ];
}

/** The bootstrap script (UTF-8 text). */
export function bootstrapScript(inputs: BootstrapInputs): string {
  const env: [string, string][] = [
    ['CLUSTER_NAME', inputs.clusterName],
    ['API_SERVER', inputs.clusterEndpoint],
    ['BOOTSTRAP_TOKEN', inputs.bootstrapToken],
    ['IMAGE_FAMILY', inputs.imageFamily],
    ['MAX_PODS', String(inputs.maxPods)],
    ['NODE_IP_FAMILY', inputs.nodeIPFamily],
    ['KUBELET_FLAGS', kubeletFlags(inputs).join(' ')],
  ];
  return [
    '#!/bin/bash',
    'set -euo pipefail',
    'umask 077',
    "cat > /etc/default/karpenter-kubelet <<'KARPENTER_ENV'",
    ENV_START,
    ...env.map(([k, v]) => `${k}=${quote(v)}`),
    ENV_END,
    'KARPENTER_ENV',
    'systemctl daemon-reload',
    'systemctl enable --now kubelet',
    '',
  ].join('\n');
}

/** The base64 `osProfile.customData` of the VM. */
export function bootstrapCustomData(inputs: BootstrapInputs): string {
  return Buffer.from(bootstrapScript(inputs), 'utf8').toString('base64');
}

/** Reads the env section back from a bootstrap script (decoded custom data). */
export function parseBootstrapEnv(script: string): Record<string, string> {
  const start = script.indexOf(ENV_START);
  const end = script.indexOf(ENV_END);
  if (start < 0 || end < start) return {};
  const out: Record<string, string> = {};
  for (const line of script.slice(start + ENV_START.length, end).split('\n')) {
    const m = /^([A-Z_]+)='(.*)'$/.exec(line);
    if (m) out[m[1] as string] = (m[2] as string).replaceAll("'\\''", "'");
  }
  return out;
}
