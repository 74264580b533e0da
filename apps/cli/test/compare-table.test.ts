import { describe, expect, it } from 'vitest';
import { renderComparison } from '../src/output/compare-table.js';
import type { ComparisonRow } from '../src/simulation/comparison.js';

/** A run over `pools` NodePools named `pool-0`…, each retargeted with one dropped requirement. */
function row(pools: number): ComparisonRow {
  const nodePools = Array.from({ length: pools }, (_, i) => `pool-${i}`);
  return {
    cloud: 'azure',
    region: 'eastus',
    nodePools,
    droppedRequirements: nodePools.map((nodePool) => ({
      nodePool,
      requirements: ['karpenter.k8s.aws/instance-category In c,m'],
    })),
    rounds: 1,
    totals: { nodes: 1, pods: 2, scheduledPods: 2, pricePerHour: 0.1 },
    pricePerMonth: 73,
    cpuUtilization: 0.5,
    memoryUtilization: 0.5,
    instanceTypes: [{ name: 'Standard_D2s_v5', count: 1 }],
    capacityTypes: [{ capacityType: 'on-demand', count: 1 }],
    pending: [],
    notes: [],
  };
}

const input = { paths: ['pools.yaml'], scale: 1 };

describe('compare table NODEPOOLS cell', () => {
  it('lists every NodePool of a run with a few, each with the requirements retargeting dropped', () => {
    const out = renderComparison([row(3)], input);
    for (const name of ['pool-0', 'pool-1', 'pool-2']) expect(out).toContain(name);
    expect(out.match(/dropped: karpenter\.k8s\.aws\/instance-category In c,m/g)).toHaveLength(3);
    expect(out).not.toContain('more NodePools');
  });

  it('names the first NodePools of a run with hundreds and counts the rest, pointing to -o json for all', () => {
    const out = renderComparison([row(500)], input);
    const lines = out.split('\n');
    expect(out).toContain('pool-4');
    expect(out).not.toMatch(/\bpool-5\b/);
    expect(out).toContain('… 495 more NodePools (-o json lists all)');
    // One table line per shown NodePool and its dropped requirement, plus the count: not 1,000.
    expect(lines.length).toBeLessThan(20);
  });
});
