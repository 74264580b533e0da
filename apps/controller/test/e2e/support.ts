/**
 * What the e2e suites share: polling, an in-memory log sink, the sim cloud's state file, and a
 * NodePool plus Deployment of their own (pods select their pool by name, so another suite's
 * NodePool never serves them), removed again at the end so the next suite starts clean.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Writable } from 'node:stream';
import type { NodeClaim, NodePool, Pod } from '@karpenter-ts/api';
import { SimStateFileName, type SimMachineRecord } from '@karpenter-ts/cloudprovider';
import { isNotFound } from '@karpenter-ts/controllers';
import type { KubeConnection } from '@karpenter-ts/kube';

/** A list answer of the API server. */
export interface List<T> {
  items: T[];
}

/** A Node as these suites read it. */
export interface NodeObject {
  metadata: { name: string; labels?: Record<string, string> };
  spec?: { providerID?: string };
}

/** Polls until `probe` yields a value (not undefined/false); fails naming `what` after `timeoutMs`. */
export async function eventually<T>(
  what: string,
  probe: () => Promise<T | undefined | false>,
  timeoutMs: number,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await probe();
      if (v !== undefined && v !== false) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline)
      throw new Error(
        `timed out after ${timeoutMs / 1000} s waiting for ${what}${last ? `: ${String(last)}` : ''}`,
      );
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** A stream for the operator's logger that appends each JSON log line to `lines`. */
export function logSink(lines: string[]): Writable {
  return new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString().split('\n').filter(Boolean));
      done();
    },
  });
}

/**
 * The last `max` lines of a control-plane component's log (`kube-scheduler`,
 * `kube-controller-manager`, ...) that contain `needle`, for failure messages. tools/local-cluster
 * writes the logs to `<state>/logs/<component>.log` next to the kubeconfig it prints; an
 * unreadable log gives one line saying so rather than an error.
 */
export function componentLogLines(
  kubeconfig: string,
  component: string,
  needle: string,
  max = 30,
): string[] {
  const path = join(dirname(kubeconfig), 'logs', `${component}.log`);
  try {
    return readFileSync(path, 'utf8')
      .split('\n')
      .filter((l) => l.includes(needle))
      .slice(-max);
  } catch (err) {
    return [`(${path}: ${String(err)})`];
  }
}

/** The machines in the sim cloud's state directory, as a restarted controller would read them. */
export function machinesIn(stateDir: string): SimMachineRecord[] {
  try {
    const state = JSON.parse(readFileSync(join(stateDir, SimStateFileName), 'utf8')) as {
      machines: SimMachineRecord[];
    };
    return state.machines;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
}

/** A NodePool, its SimNodeClass, a namespace and a Deployment of one-core pods bound to the pool. */
export class Workload {
  constructor(
    private readonly api: KubeConnection,
    /** Names the NodePool, SimNodeClass, namespace and Deployment. */
    readonly name: string,
    readonly replicas: number,
  ) {}

  get<T>(path: string): Promise<T> {
    return this.api.request<T>('GET', path);
  }

  /** Creates the namespace, SimNodeClass and NodePool (nodes of at most 16 cores, on-demand, linux). */
  async createPool(): Promise<void> {
    const { api, name } = this;
    await api.request('POST', '/api/v1/namespaces', {
      body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name } },
    });
    await api.request('POST', '/apis/karpenter.sim/v1/simnodeclasses', {
      body: { apiVersion: 'karpenter.sim/v1', kind: 'SimNodeClass', metadata: { name } },
    });
    const pool: NodePool = {
      apiVersion: 'karpenter.sh/v1',
      kind: 'NodePool',
      metadata: { name },
      spec: {
        template: {
          spec: {
            nodeClassRef: { group: 'karpenter.sim', kind: 'SimNodeClass', name },
            requirements: [
              { key: 'kubernetes.io/os', operator: 'In', values: ['linux'] },
              { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand'] },
              { key: 'karpenter.kwok.sh/instance-cpu', operator: 'Lt', values: ['17'] },
            ],
          },
        },
      },
    };
    await api.request('POST', '/apis/karpenter.sh/v1/nodepools', { body: pool });
  }

  /** Waits for a controller to mark the NodePool Ready and for the namespace's service account. */
  async poolReady(): Promise<void> {
    await eventually(
      `NodePool ${this.name} to be Ready`,
      async () =>
        (
          await this.get<NodePool>(`/apis/karpenter.sh/v1/nodepools/${this.name}`)
        ).status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'),
      30_000,
    );
    await eventually(
      'the default service account',
      () => this.get(`/api/v1/namespaces/${this.name}/serviceaccounts/default`),
      30_000,
    );
  }

  /** Creates the Deployment: `replicas` pods of one core and 1 GiB, selecting this NodePool. */
  async deploy(): Promise<void> {
    const { name } = this;
    await this.api.request('POST', `/apis/apps/v1/namespaces/${name}/deployments`, {
      body: {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name, namespace: name },
        spec: {
          replicas: this.replicas,
          selector: { matchLabels: { app: name } },
          template: {
            metadata: { labels: { app: name } },
            spec: {
              nodeSelector: { 'karpenter.sh/nodepool': name },
              terminationGracePeriodSeconds: 0,
              containers: [
                {
                  name: 'pause',
                  image: 'registry.k8s.io/pause:3.10',
                  resources: { requests: { cpu: '1', memory: '1Gi' } },
                },
              ],
            },
          },
        },
      },
    });
  }

  async pods(): Promise<Pod[]> {
    return (
      await this.get<List<Pod>>(
        `/api/v1/namespaces/${this.name}/pods?labelSelector=app%3D${this.name}`,
      )
    ).items;
  }

  /** This pool's NodeClaims. */
  async nodeClaims(): Promise<NodeClaim[]> {
    return (
      await this.get<List<NodeClaim>>(
        `/apis/karpenter.sh/v1/nodeclaims?labelSelector=karpenter.sh%2Fnodepool%3D${this.name}`,
      )
    ).items;
  }

  /** This pool's Nodes. */
  async nodes(): Promise<NodeObject[]> {
    return (
      await this.get<List<NodeObject>>(
        `/api/v1/nodes?labelSelector=karpenter.sh%2Fnodepool%3D${this.name}`,
      )
    ).items;
  }

  /** Resolves with the pods once all `replicas` exist and are bound to a node. */
  allPodsBound(timeoutMs: number): Promise<Pod[]> {
    return eventually(
      `all ${this.replicas} pods of ${this.name} to be bound`,
      async () => {
        const pods = await this.pods();
        return pods.length === this.replicas && pods.every((p) => p.spec?.nodeName) ? pods : false;
      },
      timeoutMs,
    );
  }

  /**
   * Removes everything again while a controller still runs (it drains and terminates the nodes):
   * the Deployment and its pods first (foreground deletion, so no ReplicaSet is left to replace
   * pods that draining evicts, which would ask for new capacity), then the NodeClaims, then the
   * NodePool, SimNodeClass and namespace.
   */
  async remove(): Promise<void> {
    const { api, name } = this;
    const ignoreMissing = (err: unknown) => {
      if (!isNotFound(err)) throw err;
    };
    await api
      .request('DELETE', `/apis/apps/v1/namespaces/${name}/deployments/${name}`, {
        body: { apiVersion: 'v1', kind: 'DeleteOptions', propagationPolicy: 'Foreground' },
      })
      .catch(ignoreMissing);
    await eventually(
      `the pods of ${name} to go`,
      async () => (await this.pods()).length === 0,
      60_000,
    );
    await eventually(
      `the node claims and nodes of ${name} to vanish`,
      async () => {
        const claims = await this.nodeClaims();
        for (const nc of claims.filter((c) => c.metadata.deletionTimestamp === undefined)) {
          await api
            .request('DELETE', `/apis/karpenter.sh/v1/nodeclaims/${nc.metadata.name}`)
            .catch(ignoreMissing);
        }
        return claims.length + (await this.nodes()).length === 0;
      },
      60_000,
    );
    await api.request('DELETE', `/apis/karpenter.sh/v1/nodepools/${name}`).catch(ignoreMissing);
    await api
      .request('DELETE', `/apis/karpenter.sim/v1/simnodeclasses/${name}`)
      .catch(ignoreMissing);
    await api.request('DELETE', `/api/v1/namespaces/${name}`).catch(ignoreMissing);
  }
}
