import { describe, expect, it } from 'vitest';
import { isTrue } from '@karpenter-ts/controllers';
import { measureDisruption } from '../src/disruption-bench.js';
import {
  clusterCost,
  deleteHalf,
  disruptionNodePool,
  emptyCluster,
  provision,
  resourceLowerBound,
} from '../src/disruption-cluster.js';
import { diversePods } from '../src/scheduling-workload.js';

describe('the disruption benchmark harness', () => {
  it('provisions the diverse mix into initialized, consolidatable nodes with every pod bound', async () => {
    const pods = diversePods(100);
    const c = await emptyCluster('ts', disruptionNodePool(pods.length));
    const p = await provision(c, pods);
    expect(p.nodes).toBe(20);
    const claims = await c.client.list('NodeClaim');
    expect(claims).toHaveLength(20);
    expect(claims.every((nc) => isTrue(nc, 'Initialized') && isTrue(nc, 'Consolidatable'))).toBe(
      true,
    );
    const nodes = await c.client.list('Node');
    expect(nodes.every((n) => n.metadata?.labels?.['karpenter.sh/initialized'] === 'true')).toBe(
      true,
    );
    expect((await c.client.list('Pod')).every((x) => x.spec?.nodeName)).toBe(true);
    const kept = await deleteHalf(c, pods);
    expect(kept).toHaveLength(50);
    expect(await c.client.list('Pod')).toHaveLength(50);
    expect(clusterCost(c).usdPerHour).toBeGreaterThan(resourceLowerBound(kept));
    c.stop();
  });

  it('runs passes to convergence with both solvers deciding alike, every pod still bound', async () => {
    const r = await measureDisruption('test-100', diversePods(100), {
      solvers: ['wasm', 'ts'],
      maxPasses: 200,
      maxSeconds: 120,
      firstPassIterations: 1,
      log: () => undefined,
    });
    expect(r.convergence.converged).toBe(true);
    expect(r.convergence.solversAgree).toBe(true);
    expect(r.passes.at(-1)?.commands).toBe(0);
    expect(r.after.usdPerHour).toBeLessThan(r.before.usdPerHour);
    expect(r.after.usdPerHour).toBeGreaterThan(r.lowerBoundUsdPerHour);
    expect(r.costRatio).toBeGreaterThan(0);
  }, 120_000);
});
