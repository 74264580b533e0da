import { describe, expect, it } from 'vitest';
import { addWorkload, costPerHour, disruptionEnv, settle } from './support.js';

describe('consolidation end to end in memory', () => {
  it('removes and replaces nodes after a Deployment is scaled from 40 to 4 pods, keeping every pod bound', async () => {
    const env = await disruptionEnv();
    addWorkload(env, 'web', 40, { cpu: '900m', memory: '1Gi' });
    expect(await settle(env, 300)).toBe(true);
    const before = (await env.client.list('Node')).length;
    const costBefore = await costPerHour(env);
    expect(before).toBeGreaterThan(1);

    env.loop.replicaSets.scale('web', 4);
    await env.loop.runUntil(async () => false, 900);
    expect(await settle(env, 300)).toBe(true);

    const after = (await env.client.list('Node')).length;
    const pods = await env.client.list('Pod');
    expect(pods).toHaveLength(4);
    expect(pods.every((p) => p.spec?.nodeName)).toBe(true);
    expect(after).toBeLessThan(before);
    expect(await costPerHour(env)).toBeLessThan(costBefore);
    expect(env.cloud.instances()).toHaveLength(after);
    env.loop.stop();
  });
});
