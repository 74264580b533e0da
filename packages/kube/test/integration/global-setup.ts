/**
 * Starts one real control plane (etcd, kube-apiserver, kube-controller-manager,
 * kube-scheduler from tools/local-cluster) for the integration run, in a fresh state folder,
 * and always stops it afterwards. The kubeconfig path reaches the tests as
 * `inject('kubeconfig')` and `$KUBECONFIG`.
 *
 * When the binaries are not built or the cluster does not start, setup throws, so the run FAILS
 * with the reason; it never passes by skipping.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    kubeconfig: string;
  }
}

const run = promisify(execFile);
const repo = new URL('../../../../', import.meta.url).pathname;
const clusterScript = join(repo, 'tools/local-cluster/cluster.sh');
let clusterDir: string | undefined;

function clusterEnv(dir: string): NodeJS.ProcessEnv {
  return { ...process.env, KARPENTER_TS_CLUSTER_DIR: dir };
}

export async function setup(project: TestProject): Promise<void> {
  const cache = process.env.KARPENTER_TS_CACHE ?? join(homedir(), '.cache/karpenter-ts');
  const bin = join(cache, 'kube', process.env.KUBE_VERSION ?? 'v1.36.3', 'bin');
  const missing = [
    'etcd',
    'kube-apiserver',
    'kube-controller-manager',
    'kube-scheduler',
    'kubectl',
  ].filter((b) => !existsSync(join(bin, b)));
  if (missing.length > 0) {
    throw new Error(
      `integration tests need the local control plane, but ${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} not built in ${bin}. ` +
        'Run `bash tools/local-cluster/build.sh` first (about 15 minutes on a fresh machine).',
    );
  }
  clusterDir = mkdtempSync(join(process.env.TMPDIR ?? tmpdir(), 'karpenter-ts-kube-it.'));
  let stdout: string;
  try {
    ({ stdout } = await run('bash', [clusterScript, 'start'], {
      env: clusterEnv(clusterDir),
      maxBuffer: 16 << 20,
    }));
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; message: string };
    // cluster.sh has stopped what it started and keeps the state folder (logs) for inspection.
    clusterDir = undefined;
    throw new Error(
      `tools/local-cluster/cluster.sh start failed: ${e.message}\n${e.stderr ?? ''}${e.stdout ?? ''}`,
    );
  }
  const kubeconfig = stdout.trim().split('\n').pop() ?? '';
  if (!existsSync(kubeconfig)) {
    await stop();
    throw new Error(
      `cluster.sh start did not print a kubeconfig path (last line: ${JSON.stringify(kubeconfig)})`,
    );
  }
  process.env.KUBECONFIG = kubeconfig;
  project.provide('kubeconfig', kubeconfig);
}

export async function teardown(): Promise<void> {
  await stop();
}

async function stop(): Promise<void> {
  if (clusterDir === undefined) return;
  const dir = clusterDir;
  clusterDir = undefined;
  await run('bash', [clusterScript, 'stop'], { env: clusterEnv(dir) }).catch((err: unknown) => {
    console.error(`cluster.sh stop failed for ${dir}: ${String(err)}`);
  });
}
