/**
 * `--provider sim`: the operator gives the provisioner the sim cloud's well-known labels
 * (KwokWellKnownLabels), so a pending pod may select `karpenter.kwok.sh/instance-cpu` although
 * its NodePool does not mention it, as upstream's KWOK provider adds its labels to
 * `v1.WellKnownLabels`. Unit level: the manager's provisioner on the in-memory client.
 */
import type { NodePool, Pod } from '@karpenter-ts/api';
import {
  KwokLabels,
  KwokWellKnownLabels,
  SimCloudProvider,
  kwokInstanceTypes,
} from '@karpenter-ts/cloudprovider';
import { ManualClock, MemoryKubeClient } from '@karpenter-ts/controllers';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { Manager, OperatorMetrics } from '../src/index.js';

const ready = {
  type: 'Ready',
  status: 'True',
  lastTransitionTime: '2026-01-01T00:00:00Z',
  reason: 'Ready',
  message: '',
} as const;

const pool: NodePool = {
  apiVersion: 'karpenter.sh/v1',
  kind: 'NodePool',
  metadata: { name: 'open' },
  spec: {
    template: {
      spec: {
        nodeClassRef: { group: 'karpenter.sim', kind: 'SimNodeClass', name: 'default' },
        requirements: [{ key: 'kubernetes.io/os', operator: 'In', values: ['linux'] }],
      },
    },
  },
  status: { conditions: [ready] },
};

function pendingPod(nodeSelector: Record<string, string>): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'picky', namespace: 'default', uid: 'uid-picky' },
    spec: { nodeSelector, containers: [{ name: 'c', image: 'x' }] },
    status: {
      phase: 'Pending',
      conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable' }],
    },
  };
}

/** The manager as `--provider sim` wires it (labels and catalog), on an in-memory cluster. */
async function simManager(
  pod: Pod,
  logger: pino.Logger = pino({ level: 'silent' }),
): Promise<{ manager: Manager; client: MemoryKubeClient }> {
  const clock = new ManualClock();
  const client = new MemoryKubeClient({ clock });
  await client.create('NodeClass', {
    apiVersion: 'karpenter.sim/v1',
    kind: 'SimNodeClass',
    metadata: { name: 'default' },
    status: { conditions: [ready] },
  });
  await client.create('NodePool', pool);
  await client.create('Pod', pod);
  const manager = new Manager({
    client,
    cloudProvider: new SimCloudProvider({ instanceTypes: kwokInstanceTypes(), clock }),
    clock,
    logger,
    metrics: new OperatorMetrics({ version: 'test', commit: 'test' }),
    provisioner: { solver: 'ts', extraWellKnownLabels: [...KwokWellKnownLabels] },
    validation: { extraWellKnownLabels: [...KwokWellKnownLabels] },
  });
  return { manager, client };
}

describe('--provider sim with a pod selecting a KWOK instance-type label', () => {
  it('creates a node claim for the instance-cpu the pod selects', async () => {
    const { manager, client } = await simManager(pendingPod({ [KwokLabels.InstanceCPU]: '8' }));
    const out = await manager.provisioner.provision();
    expect(out.results.podErrors.size).toBe(0);
    expect(out.created).toHaveLength(1);
    expect(out.created[0]?.spec.requirements).toContainEqual({
      key: KwokLabels.InstanceCPU,
      operator: 'In',
      values: ['8'],
    });
    expect(client.events.filter((e) => e.reason === 'FailedScheduling')).toEqual([]);
  });

  it('records FailedScheduling naming the requirement when no KWOK type has the value', async () => {
    const { manager, client } = await simManager(pendingPod({ [KwokLabels.InstanceCPU]: '3' }));
    const out = await manager.provisioner.provision();
    expect(out.created).toEqual([]);
    const messages = client.events
      .filter((e) => e.reason === 'FailedScheduling')
      .map((e) => e.message);
    expect(messages).toHaveLength(1);
    expect(messages[0]).toContain(`no instance type met the requirements`);
    expect(messages[0]).toContain(`${KwokLabels.InstanceCPU} In [3]`);
  });
});

describe("the provisioner's log of computed node claims", () => {
  /** A logger whose JSON lines land in `lines`. */
  function capture(): { logger: pino.Logger; lines: Record<string, unknown>[] } {
    const lines: Record<string, unknown>[] = [];
    const stream = { write: (line: string) => lines.push(JSON.parse(line)) };
    return { logger: pino({ level: 'info' }, stream), lines };
  }
  const computed = (l: Record<string, unknown>) =>
    l['msg'] === 'computed new nodeclaim(s) to fit pod(s)';

  it('logs the node claims it creates for the pending pods', async () => {
    const { logger, lines } = capture();
    const { manager } = await simManager(pendingPod({ [KwokLabels.InstanceCPU]: '8' }), logger);
    const out = await manager.provisioner.provision();
    expect(lines.filter(computed)).toEqual([
      expect.objectContaining({ pods: 1, nodeClaims: [out.created[0]?.metadata.name] }),
    ]);
  });

  it('logs nothing of the kind for a batch whose only pod fits no instance type (as upstream)', async () => {
    const { logger, lines } = capture();
    const { manager, client } = await simManager(
      pendingPod({ [KwokLabels.InstanceCPU]: '3' }),
      logger,
    );
    await manager.provisioner.provision();
    await manager.provisioner.provision();
    expect(lines.filter(computed)).toEqual([]);
    // The pod is still reported, as an event on it.
    expect(client.events.filter((e) => e.reason === 'FailedScheduling')).toHaveLength(2);
  });
});
