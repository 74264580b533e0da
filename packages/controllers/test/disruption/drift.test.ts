/**
 * Drift: the NodeClaim `Drifted` condition (NodePool hash,
 * requirements, instance type gone, the provider's reason) and the drift method, which replaces
 * one drifted node per command within the Drifted budget, empty and oldest-drifted nodes first,
 * without the 15 s validation.
 */
import type { NodeClaim } from '@karpenter-ts/api';
import { Annotations, Labels, NodeClaimConditions } from '@karpenter-ts/api';
import { allowUndefinedWellKnownLabels, Requirements } from '@karpenter-ts/scheduling';
import { describe, expect, it } from 'vitest';
import { getCondition, NodeClaimDisruption, NodePoolHash } from '../../src/index.js';
import {
  addNode,
  bindPods,
  disruptionPool,
  eventsFor,
  isTainted,
  names,
  sizedCatalog,
  skipReason,
  unitEnv,
  type UnitEnv,
} from './support.js';

/** Keeps consolidation from replacing an on-demand node with a cheaper spot one. */
const onDemandOnly = [{ key: Labels.CapacityType, operator: 'In' as const, values: ['on-demand'] }];

function conditions(env: UnitEnv) {
  return new NodeClaimDisruption({
    client: env.client,
    cloudProvider: env.cloud,
    clock: env.clock,
  });
}

async function drifted(env: UnitEnv, name: string): Promise<string | undefined> {
  const nc = (await env.client.get('NodeClaim', { name })) as NodeClaim;
  const c = getCondition(nc, NodeClaimConditions.Drifted);
  return c?.status === 'True' ? c.reason : undefined;
}

/** An env whose pool carries our hash annotations (as the hash controller writes them) and a node `a` made from it. */
async function hashedEnv(): Promise<UnitEnv> {
  const env = await unitEnv();
  await new NodePoolHash({ client: env.client }).reconcile('default');
  await addNode(env, { name: 'a' });
  return env;
}

async function updatePool(
  env: UnitEnv,
  change: (pool: import('@karpenter-ts/api').NodePool) => void,
) {
  const pool = await env.client.get('NodePool', { name: 'default' });
  if (pool === undefined) throw new Error('no pool');
  change(pool);
  await env.client.update('NodePool', pool);
}

/** What launch writes on every NodeClaim that has no instance yet: a provider ID. */
async function launchAll(env: UnitEnv): Promise<void> {
  for (const nc of await env.client.list('NodeClaim')) {
    if (nc.status?.providerID) continue;
    nc.status = { ...(nc.status ?? {}), providerID: `sim:///test-zone-1/${nc.metadata.name}` };
    await env.client.updateStatus('NodeClaim', nc);
  }
}

describe('the Drifted condition', () => {
  it('is not set on a NodeClaim that matches its NodePool', async () => {
    const env = await hashedEnv();
    await conditions(env).reconcile('a');
    expect(await drifted(env, 'a')).toBeUndefined();
  });

  it('is NodePoolDrifted after a template label change (the hash changed, same hash version)', async () => {
    const env = await hashedEnv();
    await updatePool(env, (p) => {
      p.spec.template.metadata = { labels: { team: 'b' } };
    });
    await new NodePoolHash({ client: env.client }).reconcile('default');
    await conditions(env).reconcile('a');
    expect(await drifted(env, 'a')).toBe('NodePoolDrifted');
  });

  it('is not set by a change the hash leaves out (budgets)', async () => {
    const env = await hashedEnv();
    await updatePool(env, (p) => {
      p.spec.disruption = { budgets: [{ nodes: '0' }] };
    });
    await new NodePoolHash({ client: env.client }).reconcile('default');
    await conditions(env).reconcile('a');
    expect(await drifted(env, 'a')).toBeUndefined();
  });

  it('is RequirementsDrifted when the pool no longer admits the NodeClaim instance type', async () => {
    const env = await hashedEnv();
    await updatePool(env, (p) => {
      p.spec.template.spec.requirements = [
        { key: Labels.InstanceType, operator: 'In', values: ['medium'] },
      ];
    });
    await conditions(env).reconcile('a');
    expect(await drifted(env, 'a')).toBe('RequirementsDrifted');
  });

  it('is RequirementsDrifted when the pool requires a well-known label value the NodeClaim lacks', async () => {
    const env = await hashedEnv();
    await updatePool(env, (p) => {
      p.spec.template.spec.requirements = [
        { key: Labels.TopologyZone, operator: 'In', values: ['test-zone-2'] },
      ];
    });
    await conditions(env).reconcile('a');
    expect(await drifted(env, 'a')).toBe('RequirementsDrifted');
  });

  it("carries the cloud provider's reason (isDrifted), and is removed when the provider no longer reports it", async () => {
    const env = await hashedEnv();
    env.cloud.setDrifted('a', 'ImageDrifted');
    await conditions(env).reconcile('a');
    expect(await drifted(env, 'a')).toBe('ImageDrifted');
    env.cloud.setDrifted('a', '');
    await conditions(env).reconcile('a');
    const nc = (await env.client.get('NodeClaim', { name: 'a' })) as NodeClaim;
    expect(getCondition(nc, NodeClaimConditions.Drifted)).toBeUndefined();
  });

  it('is not set on a NodeClaim that has not launched', async () => {
    const env = await hashedEnv();
    env.cloud.setDrifted('a', 'ImageDrifted');
    const nc = (await env.client.get('NodeClaim', { name: 'a' })) as NodeClaim;
    nc.status = {
      ...nc.status,
      conditions: (nc.status?.conditions ?? []).filter((c) => c.type !== 'Launched'),
    };
    await env.client.updateStatus('NodeClaim', nc);
    await conditions(env).reconcile('a');
    expect(await drifted(env, 'a')).toBeUndefined();
  });

  it('is InstanceTypeNotFound once the type left the catalog, checked only after the NodeClaim is 1 h old', async () => {
    const catalog = sizedCatalog();
    const env = await unitEnv({ instanceTypes: catalog });
    await addNode(env, { name: 'a', instanceType: 'large' });
    catalog.splice(
      catalog.findIndex((t) => t.name === 'large'),
      1,
    );
    const controller = conditions(env);
    env.clock.advance(59 * 60);
    await controller.reconcile('a');
    expect(await drifted(env, 'a')).toBeUndefined();
    env.clock.advance(60);
    await controller.reconcile('a');
    expect(await drifted(env, 'a')).toBe('InstanceTypeNotFound');
  });

  // A provider's offerings may require a label its older NodeClaims lack (Azure's
  // karpenter.azure.com/placement-scope): upstream lets a well-known key be undefined there.
  describe('when every offering of the type requires a label the NodeClaim lacks', () => {
    const scope = 'example.com/placement-scope';
    async function scopedEnv(): Promise<UnitEnv> {
      const catalog = sizedCatalog();
      for (const type of catalog)
        for (const offering of type.offerings)
          offering.requirements.add(
            ...Requirements.fromNodeSelectorRequirements([
              { key: scope, operator: 'In', values: ['zonal'] },
            ]).values(),
          );
      const env = await unitEnv({ instanceTypes: catalog });
      await addNode(env, { name: 'a', instanceType: 'large' });
      env.clock.advance(60 * 60);
      return env;
    }

    it("is not InstanceTypeNotFound when the label is one of the provider's well-known labels", async () => {
      const env = await scopedEnv();
      await new NodeClaimDisruption({
        client: env.client,
        cloudProvider: env.cloud,
        clock: env.clock,
        allowUndefinedLabels: allowUndefinedWellKnownLabels([scope]),
      }).reconcile('a');
      expect(await drifted(env, 'a')).toBeUndefined();
    });

    it('is InstanceTypeNotFound when the label is not well known (a custom label must be defined)', async () => {
      const env = await scopedEnv();
      await conditions(env).reconcile('a');
      expect(await drifted(env, 'a')).toBe('InstanceTypeNotFound');
    });
  });
});

describe('the drift method', () => {
  it('replaces a drifted node at once, without the 15 s validation', async () => {
    const env = await unitEnv();
    await addNode(env, { name: 'a', drifted: true });
    await bindPods(env, 'a', 1);
    await env.disruption.reconcile();
    expect(env.disruption.pendingCommand).toBeUndefined();
    const [entry] = env.disruption.queue.commands();
    expect(entry?.command.method).toBe('drift');
    expect(entry?.command.reason).toBe('Drifted');
    expect(names(entry?.command)).toEqual(['a']);
    expect(entry?.replacements).toHaveLength(1);
    expect(await isTainted(env, 'a')).toBe(true);
  });

  it('takes one drifted node per command even when the budget allows all of them', async () => {
    const env = await unitEnv();
    for (const name of ['a', 'b', 'c']) {
      await addNode(env, { name, drifted: true });
      await bindPods(env, name, 1, { requests: { cpu: '7' } });
    }
    const plan = await env.disruption.plan();
    expect(plan.method).toBe('drift');
    expect(plan.commands).toHaveLength(1);
    expect(plan.commands[0]?.candidates).toHaveLength(1);
  });

  it('starts the next drifted node on the next pass only while the budget allows (1: no; 2: yes)', async () => {
    for (const [nodes, commands] of [
      ['1', 1],
      ['2', 2],
    ] as const) {
      const env = await unitEnv({
        pools: [disruptionPool({ budgets: [{ nodes }], requirements: onDemandOnly })],
      });
      for (const name of ['a', 'b']) {
        await addNode(env, { name, drifted: true });
        await bindPods(env, name, 1, { requests: { cpu: '7' } });
      }
      await env.disruption.reconcile();
      await launchAll(env); // the replacement gets its instance; cluster state is synced again
      env.clock.advance(1);
      await env.disruption.reconcile();
      expect(env.disruption.queue.commands()).toHaveLength(commands);
    }
  });

  it('launches nothing when the pods of the drifted node fit on other nodes', async () => {
    const env = await unitEnv();
    await addNode(env, { name: 'a', drifted: true });
    await addNode(env, { name: 'b', consolidatable: false });
    await bindPods(env, 'a', 1);
    await bindPods(env, 'b', 1);
    const plan = await env.disruption.plan();
    expect(plan.method).toBe('drift');
    expect(plan.commands[0]?.replacements).toEqual([]);
  });

  it('takes the node that drifted first', async () => {
    const env = await unitEnv();
    await addNode(env, { name: 'later', drifted: true, consolidatable: false });
    env.clock.advance(60);
    await addNode(env, { name: 'latest', drifted: true, consolidatable: false });
    await bindPods(env, 'later', 1, { requests: { cpu: '7' } });
    await bindPods(env, 'latest', 1, { requests: { cpu: '7' } });
    const plan = await env.disruption.plan();
    expect(names(plan.commands[0])).toEqual(['later']);
  });

  it('takes an empty drifted node before an older drifted node with pods', async () => {
    const env = await unitEnv();
    await addNode(env, { name: 'old-busy', drifted: true });
    env.clock.advance(60);
    await addNode(env, { name: 'new-empty', drifted: true, consolidatable: false });
    await bindPods(env, 'old-busy', 1, { requests: { cpu: '7' } });
    const plan = await env.disruption.plan();
    expect(plan.method).toBe('drift');
    expect(names(plan.commands[0])).toEqual(['new-empty']);
  });

  it('skips a drifted node whose pods cannot reschedule, with a DisruptionBlocked event, and takes the next', async () => {
    const env = await unitEnv();
    await addNode(env, { name: 'pinned', drifted: true });
    env.clock.advance(60);
    await addNode(env, { name: 'free', drifted: true });
    await bindPods(env, 'pinned', 1, { nodeSelector: { [Labels.Hostname]: 'pinned' } });
    await bindPods(env, 'free', 1);
    await env.disruption.reconcile();
    expect(names(env.disruption.queue.commands()[0]?.command)).toEqual(['free']);
    expect(skipReason(env.disruption.lastPlan!, 'drift', 'pinned')).toMatch(/would not schedule/);
    expect(eventsFor(env, 'pinned', 'DisruptionBlocked').at(-1)?.message).toMatch(
      /Scheduling simulation failed to schedule all pods/,
    );
  });

  it('does nothing while the Drifted budget is 0', async () => {
    const env = await unitEnv({
      pools: [
        disruptionPool({
          budgets: [{ nodes: '0', reasons: ['Drifted'] }, { nodes: '100%' }],
          requirements: onDemandOnly,
        }),
      ],
    });
    await addNode(env, { name: 'a', drifted: true });
    await bindPods(env, 'a', 1, { requests: { cpu: '7' } });
    const plan = await env.disruption.plan();
    expect(plan.commands).toEqual([]);
    expect(skipReason(plan, 'drift', 'a')).toMatch(/budget for Drifted in nodepool default is 0/);
  });

  it('does nothing while another node of the pool uses up the budget (1 allowed, 1 NotReady)', async () => {
    const env = await unitEnv({
      pools: [disruptionPool({ budgets: [{ nodes: '1' }], requirements: onDemandOnly })],
    });
    await addNode(env, { name: 'a', drifted: true });
    await addNode(env, { name: 'sick', ready: false, consolidatable: false });
    await bindPods(env, 'a', 1, { requests: { cpu: '7' } });
    await bindPods(env, 'sick', 1, { requests: { cpu: '7' } });
    const plan = await env.disruption.plan();
    expect(plan.commands).toEqual([]);
  });

  it('is not blocked by a do-not-disrupt pod when the NodeClaim has a terminationGracePeriod', async () => {
    const env = await unitEnv();
    await addNode(env, { name: 'a', drifted: true, terminationGracePeriod: '1h' });
    await bindPods(env, 'a', 1, { annotations: { [Annotations.DoNotDisrupt]: 'true' } });
    const plan = await env.disruption.plan();
    expect(plan.method).toBe('drift');
    expect(names(plan.commands[0])).toEqual(['a']);
  });
});
