/**
 * Benchmark (not a test): how long the operator takes from a Deployment's creation to having
 * created every NodeClaim its pods need, on a real control plane (tools/local-cluster) with the
 * sim provider in kwok-like mode and upstream's default batch windows (1 s idle, 10 s max).
 *
 * Each run creates a fresh NodePool and a Deployment of `PODS` one-core pods that select it, then
 * polls: the Deployment's ReplicaSet (when every pod exists) and the NodeClaims (first-seen
 * time of each). A run ends once every pod is bound; the NodeClaim time is when the last claim
 * was first seen (poll interval 100 ms). Every run has a fresh control plane and operator. Results
 * (every run and the median) go to benchmarks/results/controller-latency.json.
 *
 * The pods themselves arrive at the pace of kube-controller-manager's ReplicaSet controller
 * (its API client defaults to 20 requests/s, so 1,000 pods take about 50 s): the batch window
 * then closes at its 10 s maximum several times, and `nodeClaimsAfterLastPodSeconds` is the
 * part the controller adds after the last pod exists.
 *
 * `npm run bench` in apps/controller (starts and stops its own cluster; about 3-4 minutes).
 * Environment: `RUNS` (default 3), `PODS` (default 1000).
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { connect, installCrds, karpenterCrdFiles, type KubeConnection } from '@karpenter-ts/kube';
import { createLogger, parseOptions, startOperator, type RunningOperator } from '../src/index.js';
import { Workload } from '../test/e2e/support.js';

const run = promisify(execFile);
const clusterScript = fileURLToPath(
  new URL('../../../tools/local-cluster/cluster.sh', import.meta.url),
);
const simCrd = fileURLToPath(new URL('../crds/karpenter.sim_simnodeclasses.yaml', import.meta.url));
const resultsFile = fileURLToPath(
  new URL('../../../benchmarks/results/controller-latency.json', import.meta.url),
);

const RUNS = Number(process.env['RUNS'] ?? 3);
const PODS = Number(process.env['PODS'] ?? 1000);
const IDLE_SECONDS = 1;
const MAX_SECONDS = 10;

/** One run's figures (seconds from just before the Deployment was created). */
interface RunResult {
  readonly nodeClaims: number;
  /** When the ReplicaSet reported all pods created. */
  readonly podsCreatedSeconds: number;
  /** When the last NodeClaim was first seen. */
  readonly nodeClaimsCreatedSeconds: number;
  /** The last NodeClaim after the last pod: the controller's own share (batch window included). */
  readonly nodeClaimsAfterLastPodSeconds: number;
  /** When every pod was bound by the kube-scheduler. */
  readonly podsBoundSeconds: number;
  /** Provisioning passes that created node claims. */
  readonly provisioningPasses: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const median = (xs: readonly number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? (s[mid] ?? NaN) : ((s[mid - 1] ?? NaN) + (s[mid] ?? NaN)) / 2;
};

async function measure(
  api: KubeConnection,
  operator: RunningOperator,
  i: number,
): Promise<RunResult> {
  const workload = new Workload(api, `bench-${i}`, PODS);
  await workload.createPool();
  await workload.poolReady();
  const provisioner = operator.manager?.provisioner;
  if (provisioner === undefined) throw new Error('the operator runs no controllers');
  let passes = 0;
  const provision = provisioner.provision;
  provisioner.provision = async () => {
    const out = await provision();
    if (out.created.length > 0) passes += 1;
    return out;
  };

  const firstSeen = new Map<string, number>();
  let podsCreated = NaN;
  const start = performance.now();
  await workload.deploy();
  const seconds = () => (performance.now() - start) / 1000;
  let bound = NaN;
  for (let tick = 0; Number.isNaN(bound); tick++) {
    for (const nc of await workload.nodeClaims()) {
      const name = nc.metadata.name ?? '';
      if (!firstSeen.has(name)) firstSeen.set(name, seconds());
    }
    if (Number.isNaN(podsCreated)) {
      const rs = await api.request<{ items: { status?: { replicas?: number } }[] }>(
        'GET',
        `/apis/apps/v1/namespaces/${workload.name}/replicasets`,
      );
      if ((rs.items[0]?.status?.replicas ?? 0) >= PODS) podsCreated = seconds();
    }
    if (tick % 10 === 9) {
      const pods = await workload.pods();
      if (pods.length === PODS && pods.every((p) => p.spec?.nodeName)) bound = seconds();
    }
    if (seconds() > 300) throw new Error(`run ${i}: pods not bound after 300 s`);
    await sleep(100);
  }
  provisioner.provision = provision;
  const result: RunResult = {
    nodeClaims: firstSeen.size,
    podsCreatedSeconds: podsCreated,
    nodeClaimsCreatedSeconds: Math.max(...firstSeen.values()),
    nodeClaimsAfterLastPodSeconds: Math.max(...firstSeen.values()) - podsCreated,
    podsBoundSeconds: bound,
    provisioningPasses: passes,
  };
  console.log(`run ${i}: ${JSON.stringify(result)}`);
  return result;
}

/** One run on a fresh control plane and operator (stopped afterwards: no clean-up to wait for). */
async function runOnFreshCluster(i: number): Promise<RunResult> {
  const clusterDir = mkdtempSync(join(tmpdir(), 'karpenter-ts-bench.'));
  const env = { ...process.env, KARPENTER_TS_CLUSTER_DIR: clusterDir };
  const { stdout } = await run('bash', [clusterScript, 'start'], { env, maxBuffer: 16 << 20 });
  const kubeconfig = stdout.trim().split('\n').pop() ?? '';
  let operator: RunningOperator | undefined;
  try {
    const api = connect({ kubeconfig });
    await installCrds(api, [...karpenterCrdFiles(), simCrd]);
    const parsed = parseOptions(
      [
        '--kubeconfig',
        kubeconfig,
        '--disable-leader-election',
        '--metrics-port',
        '0',
        '--health-probe-port',
        '0',
        '--batch-idle-duration',
        `${IDLE_SECONDS}s`,
        '--batch-max-duration',
        `${MAX_SECONDS}s`,
      ],
      {},
    );
    if (parsed.kind !== 'run') throw new Error(parsed.output);
    operator = await startOperator(parsed.options, {
      version: 'bench',
      handleSignals: false,
      logger: createLogger({ level: 'error', outputPaths: ['stderr'], commit: 'bench' }),
    });
    const op = operator;
    for (let t = 0; op.manager === undefined; t++) {
      if (t > 100) throw new Error('controllers did not start');
      await sleep(100);
    }
    return await measure(api, op, i);
  } finally {
    await operator?.shutdown('benchmark run done');
    await run('bash', [clusterScript, 'stop'], { env }).catch((err: unknown) =>
      console.error(`cluster.sh stop failed: ${String(err)}`),
    );
  }
}

async function main(): Promise<void> {
  const runs: RunResult[] = [];
  for (let i = 0; i < RUNS; i++) runs.push(await runOnFreshCluster(i));
  const pick = (k: keyof RunResult) => median(runs.map((r) => r[k]));
  const cpu = cpus();
  const report = {
    benchmark: 'controller-latency',
    description:
      'Seconds from a Deployment creation to every NodeClaim created (first seen by a 100 ms poll), on tools/local-cluster (Kubernetes v1.36.3) with the sim provider in kwok-like mode',
    machine: {
      cpu: cpu[0]?.model ?? 'unknown',
      cores: cpu.length,
      memoryBytes: totalmem(),
      node: process.version,
      platform: `${process.platform}/${process.arch}`,
      sharedWithOtherWork: true,
    },
    date: new Date().toISOString(),
    config: {
      pods: PODS,
      podRequests: { cpu: '1', memory: '1Gi' },
      nodePool: 'linux, on-demand, karpenter.kwok.sh/instance-cpu < 17',
      batchIdleSeconds: IDLE_SECONDS,
      batchMaxSeconds: MAX_SECONDS,
      runs: RUNS,
    },
    median: {
      nodeClaimsCreatedSeconds: pick('nodeClaimsCreatedSeconds'),
      nodeClaimsAfterLastPodSeconds: pick('nodeClaimsAfterLastPodSeconds'),
      podsCreatedSeconds: pick('podsCreatedSeconds'),
      podsBoundSeconds: pick('podsBoundSeconds'),
      nodeClaims: pick('nodeClaims'),
      provisioningPasses: pick('provisioningPasses'),
    },
    runs,
  };
  mkdirSync(dirname(resultsFile), { recursive: true });
  writeFileSync(resultsFile, `${JSON.stringify(report, null, 2)}\n`);
  console.log(`median: ${JSON.stringify(report.median)}\nwritten to ${resultsFile}`);
}

await main();
