/**
 * The engine: runs one scenario on one cloud with one autoscaler, and returns its measures.
 *
 * Each iteration happens at one clock time `now`:
 * 1. samples due at or before `now` are taken (the cluster is as the last tick left it, so a
 *    sample needs no tick of its own);
 * 2. scenario actions due are applied (replicas, Jobs, interruptions, capacity errors, drift);
 * 3. the workload stand-ins run: pods whose work is done complete, the Job stand-in counts and
 *    replaces pods, the DaemonSet stand-in places daemon pods and collects pods of gone nodes;
 * 4. the autoscaler ticks (for Karpenter: every controller, the kube-scheduler, kubelet and
 *    ReplicaSet stand-ins), which moves the clock on by 1 s;
 * 5. the clock jumps to the next time anything can happen (see {@link nextWakeMs}).
 * The run ends with a sample at the scenario's end. Nothing reads the wall clock or
 * `Math.random`, so the same scenario and seed give the same output byte for byte.
 */
import { SimDaemonSets, SimJobs, SimPodLifecycle } from '@karpenter-ts/controllers';
import type { RunOutput } from '../measures/format.js';
import { MeasureRecorder } from '../measures/recorder.js';
import type { CloudRun, Scenario } from '../scenario/types.js';
import type { ActionContext } from './actions/context.js';
import { updateBudgets } from './actions/replicas.js';
import type { AutoscalerFactory } from './autoscaler.js';
import { setUpCluster } from './cluster-setup.js';
import { karpenter } from './karpenter.js';
import { scheduleEvents } from './schedule-events.js';
import { Timeline } from './timeline.js';
import { nextWakeMs } from './time-advance.js';

/** Options of {@link runScenario}. */
export interface RunOptions {
  /** The autoscaler under test; default Karpenter. */
  readonly autoscaler?: AutoscalerFactory;
  /** Solver of the scheduling hot path; default `wasm`. */
  readonly solver?: 'wasm' | 'ts';
  /**
   * Jump over ticks and polls that cannot change anything (default true); false runs a 1 s tick
   * whenever work is in flight and every 10 s disruption poll (slower, for checking the jumps).
   */
  readonly fastForward?: boolean;
  /** Called after each iteration with the simulated seconds done (for progress). */
  readonly onProgress?: (seconds: number) => void;
}

/**
 * Runs `scenario` on `cloud`. Raises the CLI's CliError when the cloud cannot be set up (an
 * unknown region) and the CLI's ManifestError for a workload it cannot expand (both caught by
 * loadScenario before any run).
 */
export async function runScenario(
  scenario: Scenario,
  cloud: CloudRun,
  options: RunOptions = {},
): Promise<RunOutput> {
  const setup = await setUpCluster(scenario, cloud);
  const { cluster, objects } = setup;
  const { clock, client } = cluster;
  const fastForward = options.fastForward ?? true;
  const recorder = new MeasureRecorder({
    client,
    cloud: cluster.cloud,
    clock,
    startMs: scenario.startMs,
    sampleSeconds: scenario.sampleSeconds,
  });
  recorder.start();
  const autoscaler = (options.autoscaler ?? karpenter)({
    cluster,
    recorder,
    settings: scenario.karpenter,
    seed: scenario.seed,
    solver: options.solver ?? 'wasm',
  });
  const lifecycle = new SimPodLifecycle({ client, clock, deleteCompleted: false });
  lifecycle.start();
  const jobs = new SimJobs(client);
  const daemonSets = new SimDaemonSets(client);
  const timeline = new Timeline();
  const ctx: ActionContext = {
    scenario,
    setup,
    autoscaler,
    jobs,
    recorder,
    timeline,
    workloads: new Map(objects.scalable.map((w) => [w.key, w])),
    replicas: new Map(objects.scalable.map((w) => [w.key, w.baseReplicas])),
  };
  for (const w of objects.scalable) autoscaler.replicaSets.add(w.replicaSet);
  for (const job of objects.jobs) jobs.add(job);
  await updateBudgets(ctx);
  scheduleEvents(ctx);
  await autoscaler.start();

  const endMs = scenario.startMs + scenario.durationSeconds * 1000;
  let ticks = 0;
  let quietTicks = 0;
  for (;;) {
    const now = clock.now();
    await recorder.sampleUpTo(now);
    if (now >= endMs) break;
    const writes = client.writes;
    await timeline.runDue(now);
    recorder.observeCloud(now);
    await lifecycle.reconcile();
    await jobs.reconcile();
    await daemonSets.reconcile();
    await autoscaler.step();
    recorder.observeCloud(now);
    ticks++;
    quietTicks = client.writes === writes ? quietTicks + 1 : 0;
    const next = nextWakeMs({
      nowMs: clock.now(),
      endMs,
      busy: recorder.pendingPods() > 0 || autoscaler.busy(),
      quietTicks,
      fastForward,
      timers: [autoscaler.nextDueMs(fastForward), timeline.nextMs(), lifecycle.nextCompletionMs()],
    });
    if (next > clock.now()) clock.set(next);
    options.onProgress?.((clock.now() - scenario.startMs) / 1000);
  }
  autoscaler.stop();
  lifecycle.stop();
  recorder.stop();
  const { summary, samples, events } = recorder.finish(ticks);
  return {
    id: `${autoscaler.name}/${cluster.adapter.name}/${cluster.adapter.region}`,
    autoscaler: autoscaler.name,
    cloud: cluster.adapter.name,
    region: cluster.adapter.region,
    nodeStartup: cluster.nodeStartup,
    summary,
    samples,
    events,
    notes: setup.notes,
  };
}
