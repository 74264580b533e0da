/**
 * `node dist/disruption-probe.js [--pods N] [--solver wasm|ts] [--passes N] [--max-seconds S]
 * [--profile-pass K]`: a diagnostic, not a benchmark. Builds the disruption benchmark's cluster
 * (one solver), then runs passes as the benchmark does, printing each pass's time split by the
 * wrapped calls (Scheduler construction, solves, pending pods, each method). With
 * `--profile-pass K` the K-th `plan()` runs under the V8 sampling profiler (200 µs) and the
 * profile is written to /tmp/disruption-<pods>-<solver>-pass<K>.cpuprofile (summarize it with
 * `node dist/profile-summary.js <file>`), and an acting `reconcile()` of a fresh controller on
 * the same state is timed too (the fingerprint and events the loop adds to `plan()`).
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { Provisioner, DisruptionController } from '@karpenter-ts/controllers';
import { Scheduler } from '@karpenter-ts/scheduling';
import {
  applyCommand,
  clusterCost,
  deleteHalf,
  disruptionNodePool,
  emptyCluster,
  provision,
} from './disruption-cluster.js';
import { diversePods } from './scheduling-workload.js';

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

/** Accumulated wall ms per label. */
export const timings = new Map<string, { ms: number; calls: number }>();

function add(label: string, ms: number): void {
  const t = timings.get(label) ?? { ms: 0, calls: 0 };
  t.ms += ms;
  t.calls++;
  timings.set(label, t);
}

/** Wraps a prototype method so its wall time is accumulated under `label`. */
export function instrument(proto: object, method: string, label: string): void {
  const p = proto as Record<string, (...a: unknown[]) => unknown>;
  const original = p[method];
  if (typeof original !== 'function') throw new Error(`no method ${method}`);
  p[method] = function (this: unknown, ...a: unknown[]) {
    const t0 = performance.now();
    const r = original.apply(this, a);
    if (r instanceof Promise) {
      return r.finally(() => add(label, performance.now() - t0));
    }
    add(label, performance.now() - t0);
    return r;
  };
}

async function main(): Promise<void> {
  const n = Number(arg('--pods') ?? 5000);
  const solver = (arg('--solver') ?? 'wasm') as 'wasm' | 'ts';
  const passes = Number(arg('--passes') ?? 1);
  const maxSeconds = Number(arg('--max-seconds') ?? Infinity);
  const started = performance.now();
  const pods = diversePods(n);
  const c = await emptyCluster(solver, disruptionNodePool(n));
  const p = await provision(c, pods);
  console.log(`provisioned ${n} pods on ${p.nodes} nodes in ${p.seconds.toFixed(1)} s`);
  await deleteHalf(c, pods);
  instrument(Provisioner.prototype, 'newScheduler', 'newScheduler');
  instrument(Scheduler.prototype, 'solve', 'solve');
  instrument(Provisioner.prototype, 'schedulingInputs', 'schedulingInputs');
  instrument(Provisioner.prototype, 'pendingPods', 'pendingPods');
  instrument(c.cluster, 'nodes', 'cluster.nodes');
  for (const m of c.disruption.methods) {
    instrument(m, 'computeCommands', `method ${m.name}`);
  }
  const profilePass = Number(arg('--profile-pass') ?? -1);
  for (let i = 0; i < passes; i++) {
    timings.clear();
    let session: Session | undefined;
    if (i === profilePass) {
      session = new Session();
      session.connect();
      await session.post('Profiler.enable');
      await session.post('Profiler.setSamplingInterval', { interval: 200 });
      await session.post('Profiler.start');
    }
    const t0 = performance.now();
    const plan = await c.disruption.plan();
    const s = (performance.now() - t0) / 1000;
    if (session !== undefined) {
      const { profile } = await session.post('Profiler.stop');
      const file = `/tmp/disruption-${n}-${solver}-pass${i}.cpuprofile`;
      writeFileSync(file, JSON.stringify(profile));
      session.disconnect();
      console.log(`wrote ${file}`);
      // The acting pass (what the controller's loop runs): fingerprint, events, then the plan.
      const acting = new DisruptionController({
        client: c.client,
        cluster: c.cluster,
        provisioner: c.provisioner,
        clock: c.clock,
      });
      const r0 = performance.now();
      await acting.reconcile();
      console.log(`  acting reconcile() pass: ${((performance.now() - r0) / 1000).toFixed(2)} s`);
    }
    const cmd = plan.commands[0];
    console.log(
      `pass ${i}: ${s.toFixed(2)} s, method ${plan.method ?? 'none'}, ${plan.commands.length} commands, ` +
        `${cmd?.candidates.length ?? 0} candidates, ${cmd?.replacements.length ?? 0} replacements, skipped ${plan.skipped.length}`,
    );
    for (const [label, t] of timings) {
      console.log(`  ${label.padEnd(36)} ${(t.ms / 1000).toFixed(3)} s in ${t.calls} calls`);
    }
    if (cmd === undefined) break;
    if ((performance.now() - started) / 1000 > maxSeconds) break;
    const a0 = performance.now();
    const applied = await applyCommand(c, cmd);
    const cost = clusterCost(c);
    console.log(
      `  applied in ${((performance.now() - a0) / 1000).toFixed(2)} s: ${JSON.stringify(applied)}; now ${cost.nodes} nodes, ${cost.usdPerHour.toFixed(2)} USD/h`,
    );
  }
  c.stop();
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
