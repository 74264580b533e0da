/**
 * Host-port usage on one (simulated) node: a port is `(ip, port,
 * protocol)`; an empty IP means `0.0.0.0`; `0.0.0.0` and `::` conflict with every IP.
 */
import type { Pod } from '@karpenter-ts/api';

/** One host port a container binds. */
export interface HostPort {
  /** Defaults to `0.0.0.0`. */
  readonly ip: string;
  readonly port: number;
  /** `TCP` (default), `UDP` or `SCTP`. */
  readonly protocol: string;
}

const WILDCARDS = new Set(['0.0.0.0', '::']);

/** The host ports a pod's containers (and init containers) request; those with `hostPort` 0 or unset are skipped. */
export function podHostPorts(pod: Pod): HostPort[] {
  const out: HostPort[] = [];
  const spec = pod.spec;
  if (spec === undefined) return out;
  for (const container of [...(spec.initContainers ?? []), ...spec.containers]) {
    for (const p of container.ports ?? []) {
      if (p.hostPort === undefined || p.hostPort === 0) continue;
      out.push({ ip: p.hostIP || '0.0.0.0', port: p.hostPort, protocol: p.protocol || 'TCP' });
    }
  }
  return out;
}

/** True when two host ports cannot share a node: same port and protocol, and equal IPs or a wildcard on either side. */
export function hostPortsConflict(a: HostPort, b: HostPort): boolean {
  if (a.port !== b.port || a.protocol !== b.protocol) return false;
  return a.ip === b.ip || WILDCARDS.has(a.ip) || WILDCARDS.has(b.ip);
}

/** True when any port of `a` conflicts with any port of `b`. */
export function anyHostPortConflict(a: readonly HostPort[], b: readonly HostPort[]): boolean {
  for (const x of a) for (const y of b) if (hostPortsConflict(x, y)) return true;
  return false;
}

/** Formats a host port as `ip:port/protocol` for error messages. */
export function formatHostPort(p: HostPort): string {
  return `${p.ip}:${p.port}/${p.protocol}`;
}

/** The host ports in use on one simulated node: daemons plus every pod placed there. */
export class HostPortUsage {
  private readonly ports: HostPort[] = [];

  constructor(initial: readonly HostPort[] = []) {
    this.ports.push(...initial);
  }

  /** The first port of `wanted` already in use, or undefined when all are free. */
  conflict(wanted: readonly HostPort[]): HostPort | undefined {
    for (const w of wanted) for (const p of this.ports) if (hostPortsConflict(w, p)) return w;
    return undefined;
  }

  /** Marks `ports` as used. */
  add(ports: readonly HostPort[]): void {
    this.ports.push(...ports);
  }

  /** Number of ports in use. */
  get size(): number {
    return this.ports.length;
  }
}
