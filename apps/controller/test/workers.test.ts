import { describe, expect, it } from 'vitest';
import { cpuCount, linearScaleWorkers, queueWorkers } from '../src/index.js';

describe('reconcile workers from --cpu-requests', () => {
  it('counts cores as upstream: ceil(millicores / 1000), at least 1', () => {
    expect(cpuCount(1000)).toBe(1);
    expect(cpuCount(1001)).toBe(2);
    expect(cpuCount(250)).toBe(1);
    expect(cpuCount(4000)).toBe(4);
  });

  it('scales linearly from the minimum at 1 core to the maximum at 60 cores, and no further', () => {
    expect(linearScaleWorkers(1, 100, 5000)).toBe(100);
    expect(linearScaleWorkers(30, 100, 5000)).toBe(100 + Math.floor((4900 * 29) / 59));
    expect(linearScaleWorkers(60, 100, 5000)).toBe(5000);
    expect(linearScaleWorkers(96, 100, 5000)).toBe(5000);
  });

  it("gives one core upstream's NodeClaim lifecycle, termination, pod trigger, NodePool counter and NodeClaim disruption workers; singletons keep one", () => {
    expect(queueWorkers(1000)).toEqual({
      nodepool: 10,
      'nodepool-counter': 10,
      nodeclass: 10,
      provisioner: 1,
      'pod-trigger': 10,
      'node-trigger': 10,
      nodeclaim: 1000,
      termination: 100,
      garbagecollection: 1,
      'nodeclaim-disruption': 10,
      disruption: 1,
      'disruption-queue': 1,
      'node-health': 10,
      nodeoverlay: 1,
    });
  });

  it('gives 4 cores (CPU_REQUESTS=3500) more lifecycle, termination and pod trigger workers', () => {
    const w = queueWorkers(3500);
    expect(w.nodeclaim).toBe(1000 + Math.floor((4000 * 3) / 59));
    expect(w.termination).toBe(100 + Math.floor((4900 * 3) / 59));
    expect(w['pod-trigger']).toBe(10 + Math.floor((990 * 3) / 59));
    expect(w['nodepool-counter']).toBe(10 + Math.floor((990 * 3) / 59));
    expect([w.provisioner, w.garbagecollection, w.nodepool]).toEqual([1, 1, 10]);
  });
});
