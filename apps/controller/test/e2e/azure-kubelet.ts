/**
 * What the VMs of the ARM emulator do in a real cluster, for the Azure end-to-end suite: when a
 * VM boots (the emulator's `onVmBooted` hook) its "kubelet" registers a Node from the bootstrap
 * custom data the provider wrote (the `--node-labels`, `--register-with-taints`, `--max-pods`,
 * `--kube-reserved` and `--eviction-hard` flags), with the VM size's capacity, the VM's provider
 * ID and `Ready=True`; then it renews the node Lease and finishes the deletion of terminating pods
 * (there is no container runtime). Like the cloud node manager, it deletes a Node whose VM is
 * gone. This is the role the sim provider's kwok-like mode plays for `--provider sim`.
 */
import type { ArmEmulator, BootedVirtualMachine } from '@karpenter-ts/arm-emulator';
import type { Pod, Taint } from '@karpenter-ts/api';
import { AlreadyExistsError, isNotFound } from '@karpenter-ts/controllers';
import type { KubeConnection } from '@karpenter-ts/kube';
import { allAzureSkus, parseBootstrapEnv, providerIDForVm } from '@karpenter-ts/provider-azure';

/** The kubelet flags of the bootstrap script, as the node reports them. */
export interface KubeletFlags {
  labels: Record<string, string>;
  taints: Taint[];
  maxPods: number;
  /** Millicores and bytes. */
  kubeReserved: { cpu: number; memory: number };
  /** Bytes. */
  evictionMemory: number;
}

const MiB = 2 ** 20;

/** Parses `KUBELET_FLAGS` of the bootstrap env. Raises Error naming a missing flag. */
export function parseKubeletFlags(flags: string): KubeletFlags {
  const flag = (name: string): string | undefined =>
    flags
      .split(' ')
      .find((f) => f.startsWith(`--${name}=`))
      ?.slice(name.length + 3);
  const need = (name: string): string => {
    const v = flag(name);
    if (v === undefined) throw new Error(`bootstrap custom data has no --${name}`);
    return v;
  };
  const labels = Object.fromEntries(
    need('node-labels')
      .split(',')
      .filter(Boolean)
      .map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
  );
  const taints = (flag('register-with-taints') ?? '')
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
  const reserved = /cpu=(\d+)m,memory=(\d+)Mi/.exec(need('kube-reserved'));
  const eviction = /memory\.available<(\d+)Mi/.exec(need('eviction-hard'));
  if (!reserved || !eviction) throw new Error(`unreadable kubelet flags: ${flags}`);
  return {
    labels,
    taints,
    maxPods: Number(need('max-pods')),
    kubeReserved: { cpu: Number(reserved[1]), memory: Number(reserved[2]) * MiB },
    evictionMemory: Number(eviction[1]) * MiB,
  };
}

interface NodeMeta {
  metadata?: { uid?: string };
}

interface ArmVm {
  id: string;
  name: string;
  location: string;
  zones?: string[];
  properties: {
    hardwareProfile?: { vmSize?: string };
    storageProfile?: { osDisk?: { diskSizeGB?: number } };
    osProfile?: { computerName?: string };
  };
}

/** See the module comment. */
export class EmulatedKubelets {
  /** Node name -> VM ID (lower case), for the Nodes this registered. */
  readonly nodes = new Map<string, string>();
  readonly errors: string[] = [];
  #timer: NodeJS.Timeout | undefined;
  #arm: ArmEmulator | undefined;
  #busy = false;
  readonly #uids = new Map<string, string>();

  constructor(private readonly api: KubeConnection) {}

  /** The emulator's boot hook: registers the VM's Node (errors go to the emulator's bootErrors). */
  readonly onVmBooted = async ({ vm, customData }: BootedVirtualMachine): Promise<void> => {
    const v = vm as unknown as ArmVm;
    const env = parseBootstrapEnv(customData);
    const flags = parseKubeletFlags(env['KUBELET_FLAGS'] ?? '');
    const size = v.properties.hardwareProfile?.vmSize ?? '';
    const sku = allAzureSkus().find((s) => s.name.toLowerCase() === size.toLowerCase());
    if (!sku) throw new Error(`VM ${v.name}: unknown size ${size}`);
    const m = /^\/subscriptions\/([^/]+)\/resourceGroups\/([^/]+)\//i.exec(v.id);
    const name = v.properties.osProfile?.computerName ?? v.name;
    // The kubelet sees the VM's whole memory; Karpenter's estimate subtracts an overhead.
    const cpu = sku.vCPUs * 1000;
    const memory = Math.floor(sku.memoryGiB * 1024) * MiB;
    const storage = (v.properties.storageProfile?.osDisk?.diskSizeGB ?? 128) * 1e9;
    const capacity = {
      cpu: `${cpu}m`,
      memory: String(memory),
      'ephemeral-storage': String(storage),
      pods: String(flags.maxPods),
    };
    const allocatable = {
      cpu: `${cpu - flags.kubeReserved.cpu}m`,
      memory: String(memory - flags.kubeReserved.memory - flags.evictionMemory),
      'ephemeral-storage': String(storage),
      pods: String(flags.maxPods),
    };
    const now = new Date().toISOString();
    const condition = (type: string, status: string, reason: string) => ({
      type,
      status,
      reason,
      message: 'emulated kubelet',
      lastHeartbeatTime: now,
      lastTransitionTime: now,
    });
    const zone = v.zones?.[0];
    const node = {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: {
        name,
        labels: {
          // What the cloud node manager adds, then what the kubelet was told.
          'topology.kubernetes.io/region': v.location,
          ...(zone ? { 'topology.kubernetes.io/zone': `${v.location}-${zone}` } : {}),
          'node.kubernetes.io/instance-type': size,
          ...flags.labels,
          'kubernetes.io/hostname': name,
        },
      },
      spec: {
        providerID: providerIDForVm(m?.[1] ?? '', m?.[2] ?? '', v.name),
        taints: flags.taints,
      },
      status: {
        capacity,
        allocatable,
        conditions: [
          condition('MemoryPressure', 'False', 'KubeletHasSufficientMemory'),
          condition('DiskPressure', 'False', 'KubeletHasNoDiskPressure'),
          condition('PIDPressure', 'False', 'KubeletHasSufficientPID'),
          condition('Ready', 'True', 'KubeletReady'),
        ],
        nodeInfo: {
          architecture: flags.labels['kubernetes.io/arch'] ?? 'amd64',
          operatingSystem: 'linux',
          kubeletVersion: 'v1.36.3',
          kubeProxyVersion: '',
          containerRuntimeVersion: 'emulated://0',
          kernelVersion: '',
          osImage: env['IMAGE_FAMILY'] ?? '',
          machineID: '',
          systemUUID: '',
          bootID: '',
        },
      },
    };
    let uid: string | undefined;
    try {
      uid = (await this.api.request<NodeMeta>('POST', '/api/v1/nodes', { body: node })).metadata
        ?.uid;
    } catch (err) {
      if (!(err instanceof AlreadyExistsError)) throw err;
      uid = (await this.api.request<NodeMeta>('GET', `/api/v1/nodes/${name}`)).metadata?.uid;
    }
    this.nodes.set(name, v.id.toLowerCase());
    this.#uids.set(name, uid ?? '');
    await this.#renewLease(name);
  };

  /** Starts the periodic duties (every second) against the emulator's VMs. */
  start(arm: ArmEmulator): void {
    this.#arm = arm;
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
    const vms = new Set(this.#arm?.state.virtualMachines().map((v) => v.id.toLowerCase()));
    for (const [name, vmId] of [...this.nodes]) {
      try {
        if (!vms.has(vmId)) {
          // The cloud node manager's job: the instance is gone, so is its Node.
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
          if (!p.metadata?.deletionTimestamp) continue;
          await this.api
            .request(
              'DELETE',
              `/api/v1/namespaces/${p.metadata.namespace}/pods/${p.metadata.name}`,
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
          // Owned by the Node, as the kubelet's Lease is, so it goes when the Node goes.
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
