import { describe, expect, it } from 'vitest';
import { cli } from './support/cli.js';
import { writeManifests } from './support/manifests.js';

/** A Deployment whose pods carry `schedulingGates` (e.g. held by a queueing controller). */
function deployment(name: string, gates: string): string {
  return `apiVersion: apps/v1
kind: Deployment
metadata: { name: ${name} }
spec:
  replicas: 3
  selector: { matchLabels: { app: ${name} } }
  template:
    metadata: { labels: { app: ${name} } }
    spec:
      ${gates}
      containers: [{ name: c, image: nginx, resources: { requests: { cpu: "1", memory: 1Gi } } }]
`;
}

// Upstream Karpenter provisions only for pods the scheduler marked Unschedulable; a gated pod is
// PodScheduled=False with reason SchedulingGated until its gates are removed.
describe('pods with spec.schedulingGates', () => {
  it('simulate leaves gated pods out of provisioning and says how many it left out', async () => {
    const file = await writeManifests(
      deployment('held', 'schedulingGates: [{ name: example.com/quota }]'),
      deployment('free', 'schedulingGates: []'),
    );
    const { code, stdout, stderr } = await cli('simulate', file, '--cloud', 'sim', '-o', 'json');
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const report = JSON.parse(stdout) as {
      notes: string[];
      totals: { pods: number; scheduledPods: number };
      nodeClaims: { pods: string[] }[];
    };
    expect(report.totals.pods).toBe(3);
    expect(report.totals.scheduledPods).toBe(3);
    expect(report.nodeClaims.flatMap((c) => c.pods).every((p) => p.includes('free'))).toBe(true);
    expect(report.notes).toContain(
      '3 pod(s) left out: they have spec.schedulingGates (Deployment default/held: example.com/quota), and Karpenter provisions for a pod only once its gates are removed',
    );
  });

  it('simulate says the only pods are gated when nothing else is left to schedule', async () => {
    const file = await writeManifests(
      deployment('held', 'schedulingGates: [{ name: example.com/quota }]'),
    );
    const { code, stderr } = await cli('simulate', file, '--cloud', 'sim');
    expect(code).toBe(1);
    expect(stderr).toContain('nothing to schedule: no pending pods in the input');
    expect(stderr).toContain('3 gated pod(s) left out');
  });
});
