/**
 * deploy/simulator/sweep-job.yaml (the simulator's sweep as an Indexed Job, docs/simulator.md)
 * passes a real API server's validation: `kubectl apply --dry-run=server` with kubectl's default
 * strict field validation sends both objects through admission and defaulting without storing
 * them. The image and the shards' run on a cluster with nodes are not covered (the local control
 * plane has no kubelet); the sharding itself is apps/simulator/test/sweep.test.ts. Costs ~1 s.
 */
import { execFile } from 'node:child_process';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, inject, it } from 'vitest';

const exec = promisify(execFile);
const manifest = fileURLToPath(
  new URL('../../../../deploy/simulator/sweep-job.yaml', import.meta.url),
);

/** kubectl of tools/local-cluster: `$KUBECTL`, else the cache's build. */
function kubectl(): string {
  const cache = process.env['KARPENTER_TS_CACHE'] ?? join(homedir(), '.cache', 'karpenter-ts');
  return (
    process.env['KUBECTL'] ??
    join(cache, 'kube', process.env['KUBE_VERSION'] ?? 'v1.36.3', 'bin', 'kubectl')
  );
}

interface Applied {
  items: {
    kind: string;
    metadata: { name: string; labels?: Record<string, string> };
    spec: Record<string, unknown> & {
      template?: { metadata?: { labels?: Record<string, string> } };
    };
  }[];
}

describe("the simulator's sweep Job manifest", () => {
  it('is accepted by the API server as an Indexed Job and its results claim, and nothing is stored', async () => {
    const kubeconfig = inject('kubeconfig');
    const { stdout } = await exec(kubectl(), [
      '--kubeconfig',
      kubeconfig,
      'apply',
      '--dry-run=server',
      '-f',
      manifest,
      '-o',
      'json',
    ]);
    const applied = JSON.parse(stdout) as Applied;
    expect(applied.items.map((o) => `${o.kind}/${o.metadata.name}`)).toEqual([
      'PersistentVolumeClaim/karpenter-ts-sim-results',
      'Job/karpenter-ts-sim-sweep',
    ]);
    const job = applied.items[1]!;
    expect(job.spec['completionMode']).toBe('Indexed');
    expect(job.spec['completions']).toBe(4);
    // The Job controller's defaulting ran: the pod template carries the Job's name label.
    expect(job.spec.template?.metadata?.labels?.['batch.kubernetes.io/job-name']).toBe(
      'karpenter-ts-sim-sweep',
    );
    const stored = await exec(kubectl(), [
      '--kubeconfig',
      kubeconfig,
      'get',
      'jobs,persistentvolumeclaims',
      '-o',
      'name',
    ]);
    expect(stored.stdout).not.toContain('karpenter-ts-sim');
  });
});
