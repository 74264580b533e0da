/**
 * What the AWS emulator's instances do in a real cluster, for the `--provider aws` end-to-end
 * suite: when CreateFleet launches an instance (the emulator's `onInstanceLaunched` hook) its
 * "kubelet" registers a Node from the nodeadm NodeConfig in the user data the provider wrote
 * (`--node-labels`, `--register-with-taints`, `maxPods`, `kubeReserved`), with the type's
 * capacity from the shipped catalog, the instance's provider ID and `Ready=True`; then it renews
 * the node Lease and finishes the deletion of terminating pods once their grace period is over
 * (the API server sets a pod's deletionTimestamp to the deletion time plus its grace period; the
 * containers are taken to use all of it, as a slow-stopping workload does; there is no container
 * runtime). Like the cloud node manager, it deletes a Node whose instance is terminated.
 */
import { DescribeInstancesCommand, type EC2Client } from '@aws-sdk/client-ec2';
import type { FleetLaunch } from '@karpenter-ts/aws-emulator';
import type { Pod, Taint } from '@karpenter-ts/api';
import { AlreadyExistsError, isNotFound } from '@karpenter-ts/controllers';
import type { KubeConnection } from '@karpenter-ts/kube';
import { shippedAwsCatalog } from '@karpenter-ts/provider-aws';
import { parseAllDocuments } from 'yaml';

const MiB = 2 ** 20;

interface NodeConfig {
  spec?: {
    kubelet?: {
      config?: { maxPods?: number; kubeReserved?: Record<string, string> };
      flags?: string[];
    };
  };
}

/** The NodeConfig part of AL2023 MIME user data. Raises Error when there is none. */
export function nodeConfigOf(userData: string): NodeConfig {
  const part = userData.split('Content-Type: application/node.eks.aws').at(-1);
  if (part === undefined || part === userData)
    throw new Error('user data has no application/node.eks.aws part');
  const body = part.split('\n--//')[0] ?? '';
  return parseAllDocuments(body)[0]?.toJS() as NodeConfig;
}

function quantityBytes(q: string | undefined): number {
  const m = /^(\d+)Mi$/.exec(q ?? '');
  return m ? Number(m[1]) * MiB : 0;
}

/** See the module comment. */
export class AwsKubelets {
  /** Node name -> instance ID, for the Nodes this registered. */
  readonly nodes = new Map<string, string>();
  readonly errors: string[] = [];
  #timer: NodeJS.Timeout | undefined;
  #busy = false;
  readonly #uids = new Map<string, string>();

  constructor(
    private readonly api: KubeConnection,
    private readonly ec2: EC2Client,
    private readonly region: string,
  ) {}

  /** The emulator's launch hook: registers the instance's Node. */
  readonly onInstanceLaunched = async (launch: FleetLaunch): Promise<void> => {
    const config = nodeConfigOf(launch.userData).spec?.kubelet ?? {};
    const flag = (name: string) =>
      config.flags?.find((f) => f.startsWith(`--${name}=`))?.slice(name.length + 3) ?? '';
    const labels = Object.fromEntries(
      flag('node-labels')
        .split(',')
        .filter(Boolean)
        .map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
    );
    const taints = flag('register-with-taints')
      .split(',')
      .filter(Boolean)
      .map((t): Taint => {
        const [kv = '', effect = ''] = t.split(':');
        const eq = kv.indexOf('=');
        return {
          key: eq < 0 ? kv : kv.slice(0, eq),
          ...(eq < 0 ? {} : { value: kv.slice(eq + 1) }),
          effect: effect as Taint['effect'],
        };
      });
    const record = shippedAwsCatalog().instanceTypes.find((t) => t.name === launch.instanceType);
    if (!record)
      throw new Error(`instance ${launch.instanceId}: unknown type ${launch.instanceType}`);
    const maxPods = config.config?.maxPods ?? 110;
    const cpu = record.vcpu * 1000;
    const memory = record.memoryMiB * MiB;
    const reservedCpu = Number(
      /^(\d+)m$/.exec(config.config?.kubeReserved?.['cpu'] ?? '')?.[1] ?? 0,
    );
    const reservedMemory = quantityBytes(config.config?.kubeReserved?.['memory']);
    const storage = 20 * 2 ** 30;
    const name = launch.instanceId;
    const now = new Date().toISOString();
    const condition = (type: string, status: string, reason: string) => ({
      type,
      status,
      reason,
      message: 'emulated kubelet',
      lastHeartbeatTime: now,
      lastTransitionTime: now,
    });
    const node = {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: {
        name,
        labels: {
          'topology.kubernetes.io/region': this.region,
          'topology.kubernetes.io/zone': launch.zone,
          'node.kubernetes.io/instance-type': launch.instanceType,
          'kubernetes.io/arch': record.arch,
          'kubernetes.io/os': 'linux',
          ...labels,
          'kubernetes.io/hostname': name,
        },
      },
      spec: { providerID: `aws:///${launch.zone}/${launch.instanceId}`, taints },
      status: {
        capacity: {
          cpu: `${cpu}m`,
          memory: String(memory),
          'ephemeral-storage': String(storage),
          pods: String(maxPods),
        },
        allocatable: {
          cpu: `${cpu - reservedCpu}m`,
          memory: String(memory - reservedMemory - 100 * MiB),
          'ephemeral-storage': String(storage),
          pods: String(maxPods),
        },
        conditions: [
          condition('MemoryPressure', 'False', 'KubeletHasSufficientMemory'),
          condition('DiskPressure', 'False', 'KubeletHasNoDiskPressure'),
          condition('PIDPressure', 'False', 'KubeletHasSufficientPID'),
          condition('Ready', 'True', 'KubeletReady'),
        ],
        nodeInfo: {
          architecture: record.arch,
          operatingSystem: 'linux',
          kubeletVersion: 'v1.36.3',
          kubeProxyVersion: '',
          containerRuntimeVersion: 'emulated://0',
          kernelVersion: '',
          osImage: 'Amazon Linux 2023',
          machineID: '',
          systemUUID: '',
          bootID: '',
        },
      },
    };
    let uid: string | undefined;
    try {
      uid = (
        await this.api.request<{ metadata?: { uid?: string } }>('POST', '/api/v1/nodes', {
          body: node,
        })
      ).metadata?.uid;
    } catch (err) {
      if (!(err instanceof AlreadyExistsError)) throw err;
    }
    this.nodes.set(name, launch.instanceId);
    this.#uids.set(name, uid ?? '');
    await this.#renewLease(name);
  };

  /** Starts the periodic duties (every second). */
  start(): void {
    let tick = 0;
    this.#timer = setInterval(() => {
      if (this.#busy) return;
      this.#busy = true;
      void this.#sync(tick++ % 10 === 0).finally(() => (this.#busy = false));
    }, 1000);
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
  }

  async #sync(renewLeases: boolean): Promise<void> {
    if (this.nodes.size === 0) return;
    // Only the Nodes known before the call are judged by its answer: a Node registered while
    // DescribeInstances is in flight is not in it, and must not be taken for a terminated one.
    const known = [...this.nodes];
    let live: Set<string>;
    try {
      const out = await this.ec2.send(
        new DescribeInstancesCommand({ InstanceIds: known.map(([, id]) => id) }),
      );
      live = new Set(
        (out.Reservations ?? [])
          .flatMap((r) => r.Instances ?? [])
          .filter((i) => i.State?.Name !== 'terminated' && i.State?.Name !== 'shutting-down')
          .map((i) => i.InstanceId ?? ''),
      );
    } catch (err) {
      this.errors.push(`describe: ${String(err)}`);
      return;
    }
    for (const [name, id] of known) {
      try {
        if (!live.has(id)) {
          await this.api.request('DELETE', `/api/v1/nodes/${name}`).catch((err: unknown) => {
            if (!isNotFound(err)) throw err;
          });
          this.nodes.delete(name);
          this.#uids.delete(name);
          continue;
        }
        if (renewLeases) await this.#renewLease(name);
        const pods = await this.api.request<{ items: Pod[] }>(
          'GET',
          `/api/v1/pods?fieldSelector=spec.nodeName%3D${name}`,
        );
        for (const p of pods.items) {
          const deleting = p.metadata?.deletionTimestamp;
          if (!deleting || new Date(deleting).getTime() > Date.now()) continue;
          await this.api
            .request(
              'DELETE',
              `/api/v1/namespaces/${p.metadata?.namespace}/pods/${p.metadata?.name}`,
              {
                body: { apiVersion: 'v1', kind: 'DeleteOptions', gracePeriodSeconds: 0 },
              },
            )
            .catch((err: unknown) => {
              if (!isNotFound(err)) throw err;
            });
        }
      } catch (err) {
        this.errors.push(`${name}: ${String(err)}`);
      }
    }
  }

  async #renewLease(name: string): Promise<void> {
    const path = '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases';
    const spec = {
      holderIdentity: name,
      leaseDurationSeconds: 40,
      renewTime: new Date().toISOString().replace(/Z$/, '000Z'),
    };
    try {
      await this.api.request('PATCH', `${path}/${name}`, {
        body: { spec },
        contentType: 'application/merge-patch+json',
      });
    } catch (err) {
      if (!isNotFound(err)) throw err;
      await this.api.request('POST', path, {
        body: {
          apiVersion: 'coordination.k8s.io/v1',
          kind: 'Lease',
          metadata: {
            name,
            namespace: 'kube-node-lease',
            ownerReferences: [
              { apiVersion: 'v1', kind: 'Node', name, uid: this.#uids.get(name) ?? '' },
            ],
          },
          spec,
        },
      });
    }
  }
}
