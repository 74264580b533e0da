/**
 * The one place the operator meets the API server: @karpenter-ts/kube's connection, its
 * informer-backed {@link ClusterKubeClient} (the controllers' KubeClient), the CRD probe behind
 * `/readyz`, and the leader election Lease.
 */
import { readFileSync } from 'node:fs';
import { delimiter } from 'node:path';
import type { KubeClient } from '@karpenter-ts/controllers';
import {
  ClusterKubeClient,
  connect,
  DefaultCachedKinds,
  LeaderElector,
  type ClientRateLimit,
  type LeaderElectionOptions,
  type ResourceType,
} from '@karpenter-ts/kube';
import type { RawRequest } from '../sim/kwok-cluster-api.js';

/** A connected cluster. */
export interface ClusterRuntime {
  readonly client: KubeClient;
  /** Raw requests (Leases and discovery), same credentials. */
  readonly request: RawRequest;
  /** The API server URL. */
  readonly server: string;
  /**
   * Starts the informers and resolves once every cache has listed. Rejects after `timeoutMs`
   * with an Error naming the caches that have not synced, the likely cause and the last failed
   * list or watch of any cache (an unreachable server, a missing CRD, a forbidden list), or at
   * once with `signal`'s reason when it aborts (SIGTERM during the wait); the informers are left
   * running for {@link stop}. See @karpenter-ts/kube's `ClusterKubeClient.start`.
   */
  start(timeoutMs: number, signal?: AbortSignal): Promise<void>;
  /** True once {@link start} resolved. */
  readonly synced: boolean;
  /** Whether the NodePool and NodeClaim resources are served (`/apis/karpenter.sh/v1`). */
  crdsResolvable(): Promise<boolean>;
  /** A leader elector on this connection (not started). */
  leaderElector(options: LeaderElectionOptions): LeaderElector;
  /** Stops the informers and flushes events. */
  stop(): Promise<void>;
}

/** Options of {@link connectCluster}. */
export interface ConnectClusterOptions {
  /**
   * Kubeconfig path, or several joined by the path delimiter (a `KUBECONFIG` list, merged as
   * kubectl does); empty = in-cluster config, then `KUBECONFIG` / `~/.kube/config`.
   */
  readonly kubeconfig: string;
  /** The NodeClass kinds the provider manages (cached and served as `NodeClass`). */
  readonly nodeClasses: readonly ResourceType[];
  readonly userAgent: string;
  /** Cache and serve `NodeOverlay` (the `NodeOverlay` gate); default false. */
  readonly nodeOverlays?: boolean;
  /** Client-side rate limit (`--kube-client-qps`, `--kube-client-burst`). */
  readonly rateLimit?: ClientRateLimit;
  /**
   * Told about every failed list or watch of a cache (after the connection's retries), with the
   * resource as `plural.group` (`pods.core`); the informer then backs off and tries again.
   */
  readonly onInformerError?: (err: unknown, resource: string) => void;
}

/**
 * Connects (no request yet).
 * @throws Error `no kubeconfig: ...` when no kubeconfig or in-cluster config is found (see
 * @karpenter-ts/kube's `connect`), or an error naming `kubeconfig` (`--kubeconfig, KUBECONFIG`)
 * and the problem when it cannot be read, is not valid YAML or has no clusters.
 */
export function connectCluster(options: ConnectClusterOptions): ClusterRuntime {
  const connection = connect({
    // KUBECONFIG reaches us through the option, so it may be a kubectl-style list to merge.
    ...(options.kubeconfig !== ''
      ? {
          kubeconfig: options.kubeconfig.split(delimiter).filter((f) => f !== ''),
          kubeconfigSource: '--kubeconfig, KUBECONFIG',
        }
      : {}),
    userAgent: options.userAgent,
    ...(options.rateLimit !== undefined ? { rateLimit: options.rateLimit } : {}),
  });
  const client = new ClusterKubeClient(connection, {
    nodeClasses: options.nodeClasses,
    ...(options.nodeOverlays === true ? { kinds: [...DefaultCachedKinds, 'NodeOverlay'] } : {}),
    informer: {
      onError: (err, r) => options.onInformerError?.(err, `${r.plural}.${r.group || 'core'}`),
    },
  });
  let synced = false;
  const request: RawRequest = (method, path, o = {}) =>
    connection.request(method, path, {
      ...(o.body !== undefined ? { body: o.body } : {}),
      ...(o.contentType !== undefined ? { contentType: o.contentType } : {}),
    });
  return {
    client,
    request,
    server: connection.server,
    get synced() {
      return synced;
    },
    async start(timeoutMs: number, signal?: AbortSignal) {
      await client.start({ timeoutMs, signal });
      synced = true;
    },
    async crdsResolvable() {
      const list = (await connection.request('GET', '/apis/karpenter.sh/v1')) as {
        resources?: { name?: string }[];
      };
      const names = new Set((list.resources ?? []).map((r) => r.name));
      return names.has('nodepools') && names.has('nodeclaims');
    },
    leaderElector: (o) => new LeaderElector(connection, o),
    stop: () => client.stop(),
  };
}

/** The namespace this pod runs in (service account mount), or `undefined` outside a cluster. */
export function podNamespace(): string | undefined {
  try {
    return (
      readFileSync('/var/run/secrets/kubernetes.io/serviceaccount/namespace', 'utf8').trim() ||
      undefined
    );
  } catch {
    return undefined;
  }
}
