import { ManualClock, MemoryKubeClient } from '@karpenter-ts/controllers';
import type { NodeClaim } from '@karpenter-ts/api';
import type { AzureGarbage } from '@karpenter-ts/provider-azure';
import { describe, expect, it } from 'vitest';
import {
  AZURE_GC_INTERVAL_SECONDS,
  azureGarbageCollectionTask,
} from '../src/providers/azure-garbage-collection.js';

function claim(name: string): NodeClaim {
  return {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodeClaim',
    metadata: { name },
    spec: {
      nodeClassRef: { group: 'karpenter.azure.com', kind: 'AKSNodeClass', name: 'default' },
      requirements: [],
    },
  } as NodeClaim;
}

/** A provider that deletes every VM and NIC named after a node claim not in the given set. */
class FakeAzure {
  readonly calls: string[][] = [];
  constructor(private readonly resources: string[]) {}
  async collectGarbage(names: ReadonlySet<string>): Promise<AzureGarbage> {
    this.calls.push([...names].sort());
    const leaked = this.resources.filter((r) => !names.has(r.replace(/^aks-/, '')));
    return { virtualMachines: leaked.map((r) => r), networkInterfaces: leaked.map((r) => r) };
  }
}

describe('Azure garbage collection task', () => {
  it('runs every 2 minutes (upstream GC period) and hands the provider the NodeClaim names in the cluster', async () => {
    const client = new MemoryKubeClient({ clock: new ManualClock() });
    await client.create('NodeClaim', claim('general-a'));
    await client.create('NodeClaim', claim('general-b'));
    const provider = new FakeAzure(['aks-general-a', 'aks-general-gone']);
    const logged: { fields: object; message: string }[] = [];
    const task = azureGarbageCollectionTask({
      provider,
      client,
      logger: { info: (fields, message) => void logged.push({ fields, message }) },
    });
    expect(task.intervalSeconds).toBe(AZURE_GC_INTERVAL_SECONDS);
    expect(AZURE_GC_INTERVAL_SECONDS).toBe(120);
    expect(await task.run()).toEqual({
      virtualMachines: ['aks-general-gone'],
      networkInterfaces: ['aks-general-gone'],
    });
    expect(provider.calls).toEqual([['general-a', 'general-b']]);
    expect(logged).toEqual([
      {
        fields: { virtualMachines: ['aks-general-gone'], networkInterfaces: ['aks-general-gone'] },
        message: 'garbage collected Azure resources without a NodeClaim',
      },
    ]);
  });

  it('logs nothing when nothing was collected, and a provider error fails the run', async () => {
    const client = new MemoryKubeClient({ clock: new ManualClock() });
    await client.create('NodeClaim', claim('general-a'));
    const logged: string[] = [];
    const quiet = azureGarbageCollectionTask({
      provider: new FakeAzure(['aks-general-a']),
      client,
      logger: { info: (_f, m) => void logged.push(m) },
    });
    await quiet.run();
    expect(logged).toEqual([]);
    const failing = azureGarbageCollectionTask({
      provider: {
        collectGarbage: () => Promise.reject(new Error('ARM list failed: HTTP 503')),
      },
      client,
      logger: { info: () => {} },
    });
    await expect(failing.run()).rejects.toThrow(/HTTP 503/);
  });
});
