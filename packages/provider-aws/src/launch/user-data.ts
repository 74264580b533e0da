/**
 * Instance user data per AMI family (upstream pkg/providers/amifamily/bootstrap): AL2023 gets a
 * MIME multi-part document whose last part is a nodeadm `NodeConfig`; Bottlerocket gets TOML
 * settings; Custom gets `spec.userData` unchanged. Custom user data is merged as upstream does:
 * for AL2023 the user's parts (a MIME document, a NodeConfig, or a shell script) come first, so
 * nodeadm applies Karpenter's NodeConfig over them; for Bottlerocket the user's TOML is kept
 * and Karpenter's `settings.kubernetes` keys are written over it.
 */
import { parse as parseToml, stringify as stringifyToml } from 'smol-toml';
import { stringify as stringifyYaml } from 'yaml';
import type { AMIFamily } from '../ec2nodeclass.js';

/** What the node needs to join and how its kubelet is configured. */
export interface BootstrapInput {
  readonly clusterName: string;
  /** API server URL. */
  readonly clusterEndpoint: string;
  /** Base64 PEM of the cluster CA (`--cluster-ca-bundle`); may be empty. */
  readonly caBundle?: string;
  /** The cluster's service CIDR (nodeadm `cluster.cidr`), default `10.100.0.0/16`. */
  readonly serviceCIDR?: string;
  readonly clusterDNS?: readonly string[];
  readonly maxPods: number;
  /** Node labels the kubelet registers with. */
  readonly labels: Readonly<Record<string, string>>;
  /** Taints and startup taints, as `key=value:Effect`. */
  readonly taints: readonly { key: string; value?: string; effect: string }[];
  /** `cpu` in millicores, `memory` and `ephemeral-storage` in bytes. */
  readonly kubeReserved: Readonly<Record<string, number>>;
  readonly systemReserved?: Readonly<Record<string, number>>;
  /** `spec.userData`. */
  readonly customUserData?: string;
}

const Boundary = '//';

function quantity(resource: string, value: number): string {
  if (resource === 'cpu') return `${value}m`;
  return `${Math.floor(value / (1024 * 1024))}Mi`;
}

function reservedMap(r: Readonly<Record<string, number>> | undefined): Record<string, string> {
  return Object.fromEntries(Object.entries(r ?? {}).map(([k, v]) => [k, quantity(k, v)]));
}

function taintString(t: { key: string; value?: string; effect: string }): string {
  return `${t.key}${t.value ? `=${t.value}` : ''}:${t.effect}`;
}

function labelFlag(labels: Readonly<Record<string, string>>): string {
  return Object.entries(labels)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, v]) => `${k}=${v}`)
    .join(',');
}

/** The nodeadm NodeConfig YAML Karpenter writes (apiVersion node.eks.aws/v1alpha1). */
export function nodeConfigYaml(input: BootstrapInput): string {
  const flags = [`--node-labels=${labelFlag(input.labels)}`];
  if (input.taints.length > 0)
    flags.push(`--register-with-taints=${input.taints.map(taintString).join(',')}`);
  return stringifyYaml({
    apiVersion: 'node.eks.aws/v1alpha1',
    kind: 'NodeConfig',
    spec: {
      cluster: {
        name: input.clusterName,
        apiServerEndpoint: input.clusterEndpoint,
        certificateAuthority: input.caBundle ?? '',
        cidr: input.serviceCIDR ?? '10.100.0.0/16',
      },
      kubelet: {
        config: {
          maxPods: input.maxPods,
          ...(input.clusterDNS?.length ? { clusterDNS: [...input.clusterDNS] } : {}),
          kubeReserved: reservedMap(input.kubeReserved),
          ...(input.systemReserved ? { systemReserved: reservedMap(input.systemReserved) } : {}),
        },
        flags,
      },
    },
  });
}

/** The parts of a MIME multi-part document (`Content-Type` and body), or undefined if it is none. */
function mimeParts(doc: string): { type: string; body: string }[] | undefined {
  const m = /boundary="?([^"\r\n;]+)"?/i.exec(doc);
  if (!/^MIME-Version:/im.test(doc) || !m) return undefined;
  const boundary = m[1] as string;
  return doc
    .split(`--${boundary}`)
    .slice(1)
    .filter((p) => !p.startsWith('--'))
    .map((p) => {
      const split = p.replace(/^\r?\n/, '').split(/\r?\n\r?\n/);
      const head = split[0] ?? '';
      const type = /Content-Type:\s*([^\r\n;]+)/i.exec(head)?.[1]?.trim() ?? 'text/x-shellscript';
      return {
        type,
        body: split
          .slice(1)
          .join('\n\n')
          .replace(/\r?\n$/, ''),
      };
    });
}

function customParts(custom: string | undefined): { type: string; body: string }[] {
  if (!custom || custom.trim() === '') return [];
  const parts = mimeParts(custom);
  if (parts) return parts;
  if (/^\s*apiVersion:\s*node\.eks\.aws\//m.test(custom))
    return [{ type: 'application/node.eks.aws', body: custom }];
  return [{ type: 'text/x-shellscript; charset="us-ascii"', body: custom }];
}

/** AL2023 user data: the custom parts, then Karpenter's NodeConfig, as one MIME document. */
export function al2023UserData(input: BootstrapInput): string {
  const parts = [
    ...customParts(input.customUserData),
    { type: 'application/node.eks.aws', body: nodeConfigYaml(input) },
  ];
  const lines = [
    'MIME-Version: 1.0',
    `Content-Type: multipart/mixed; boundary="${Boundary}"`,
    '',
    ...parts.flatMap((p) => [
      `--${Boundary}`,
      `Content-Type: ${p.type}`,
      '',
      p.body.replace(/\n$/, ''),
    ]),
    `--${Boundary}--`,
    '',
  ];
  return lines.join('\n');
}

/**
 * Bottlerocket user data: the custom TOML with `settings.kubernetes` cluster name, API server,
 * CA, DNS, max pods, node labels, node taints and kube/system reserved written over it. Raises
 * Error naming `spec.userData` when the custom TOML does not parse.
 */
export function bottlerocketUserData(input: BootstrapInput): string {
  let doc: Record<string, unknown> = {};
  if (input.customUserData?.trim()) {
    try {
      doc = parseToml(input.customUserData) as Record<string, unknown>;
    } catch (err) {
      throw new Error(`spec.userData: not valid TOML for Bottlerocket: ${(err as Error).message}`);
    }
  }
  const settings = (doc['settings'] ?? {}) as Record<string, unknown>;
  const k8s = (settings['kubernetes'] ?? {}) as Record<string, unknown>;
  const taints: Record<string, string[]> = {};
  for (const t of input.taints) (taints[t.key] ??= []).push(`${t.value ?? ''}:${t.effect}`);
  Object.assign(k8s, {
    'cluster-name': input.clusterName,
    'api-server': input.clusterEndpoint,
    ...(input.caBundle ? { 'cluster-certificate': input.caBundle } : {}),
    ...(input.clusterDNS?.length ? { 'cluster-dns-ip': input.clusterDNS[0] } : {}),
    'max-pods': input.maxPods,
    'node-labels': { ...((k8s['node-labels'] as object) ?? {}), ...input.labels },
    ...(input.taints.length > 0
      ? { 'node-taints': { ...((k8s['node-taints'] as object) ?? {}), ...taints } }
      : {}),
    'kube-reserved': {
      ...((k8s['kube-reserved'] as object) ?? {}),
      ...reservedMap(input.kubeReserved),
    },
    ...(input.systemReserved ? { 'system-reserved': reservedMap(input.systemReserved) } : {}),
  });
  settings['kubernetes'] = k8s;
  doc['settings'] = settings;
  return stringifyToml(doc);
}

/**
 * The user data for `family` (plain text; the launch template holds it base64-encoded). AL2023
 * and Bottlerocket as above; Custom (and families without a bootstrap here: AL2, Windows) get
 * `customUserData` as is. Raises Error for unparsable Bottlerocket TOML.
 */
export function userDataFor(family: AMIFamily, input: BootstrapInput): string {
  if (family === 'AL2023') return al2023UserData(input);
  if (family === 'Bottlerocket') return bottlerocketUserData(input);
  return input.customUserData ?? '';
}
