/**
 * Starts a real control plane (etcd, kube-apiserver, kube-controller-manager, kube-scheduler
 * v1.36.3 from tools/local-cluster) in a fresh state folder for the run and stops it afterwards.
 * The kubeconfig reaches tests as `inject('kubeconfig')`. If the binaries are missing or the
 * cluster does not start, setup throws and the run FAILS; it never passes by skipping.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    kubeconfig: string;
  }
}

const run = promisify(execFile);
const clusterScript = new URL('../../../../tools/local-cluster/cluster.sh', import.meta.url)
  .pathname;
let clusterDir: string | undefined;

export async function setup(project: TestProject): Promise<void> {
  clusterDir = mkdtempSync(join(process.env.TMPDIR ?? tmpdir(), 'karpenter-ts-controller-e2e.'));
  let stdout: string;
  try {
    ({ stdout } = await run('bash', [clusterScript, 'start'], {
      env: { ...process.env, KARPENTER_TS_CLUSTER_DIR: clusterDir },
      maxBuffer: 16 << 20,
    }));
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; message: string };
    clusterDir = undefined; // cluster.sh stopped what it started and kept its logs
    throw new Error(
      `the end-to-end suite needs tools/local-cluster, which did not start (build it with tools/local-cluster/build.sh): ${e.message}\n${e.stderr ?? ''}${e.stdout ?? ''}`,
    );
  }
  const kubeconfig = stdout.trim().split('\n').pop() ?? '';
  if (!existsSync(kubeconfig)) {
    await teardown();
    throw new Error(
      `cluster.sh start printed no kubeconfig path (last line: ${JSON.stringify(kubeconfig)})`,
    );
  }
  project.provide('kubeconfig', kubeconfig);
}

export async function teardown(): Promise<void> {
  if (clusterDir === undefined) return;
  const dir = clusterDir;
  clusterDir = undefined;
  await run('bash', [clusterScript, 'stop'], {
    env: { ...process.env, KARPENTER_TS_CLUSTER_DIR: dir },
  }).catch((err: unknown) => console.error(`cluster.sh stop failed for ${dir}: ${String(err)}`));
}
