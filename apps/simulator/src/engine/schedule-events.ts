/**
 * Puts a scenario's events on the timeline as actions (see docs/simulator.md for what each
 * event means). Every random draw comes from the event's own seeded stream.
 */
import { DriftRequeueSeconds } from '@karpenter-ts/controllers';
import { SeededRandom } from '../seeded-random.js';
import { formatSeconds } from '../scenario/durations.js';
import type { ScenarioEvent } from '../scenario/types.js';
import { msAt, type ActionContext } from './actions/context.js';
import { failNodes } from './actions/node-failure.js';
import { workTemplate } from './actions/pod-work.js';
import { setReplicas } from './actions/replicas.js';
import { interruptSpotNode } from './actions/spot-interruption.js';
import { curveReplicas, curveValue } from './curves.js';

/** Schedules every event of the scenario. */
export function scheduleEvents(ctx: ActionContext): void {
  ctx.scenario.events.forEach((e, i) => scheduleEvent(ctx, e, i));
}

function scheduleEvent(ctx: ActionContext, e: ScenarioEvent, index: number): void {
  const { timeline, recorder, scenario } = ctx;
  const random = new SeededRandom(scenario.seed, `event:${index}:actions`);
  const end = scenario.durationSeconds;
  switch (e.type) {
    case 'replicas':
      timeline.schedule(msAt(ctx, e.atSeconds), async () => {
        await setReplicas(ctx, new Map(e.workloads.map((k) => [k, e.replicas])));
        recorder.scenario('replicas', `${e.workloads.join(', ')} → ${e.replicas}`);
      });
      return;
    case 'replicasCurve':
      for (let t = e.fromSeconds; t < Math.min(e.toSeconds, end); t += e.everySeconds) {
        const at = t;
        timeline.schedule(msAt(ctx, at), async () => {
          const value = curveValue(e.curve, at);
          const changes = new Map<string, number>();
          for (const key of e.workloads) {
            const base = ctx.workloads.get(key)?.baseReplicas ?? 0;
            const z = e.curve.noise > 0 ? random.normal() : 0;
            changes.set(
              key,
              curveReplicas(base, value, e.curve.noise, z, {
                min: e.minReplicas,
                max: e.maxReplicas,
              }),
            );
          }
          await setReplicas(ctx, changes);
        });
      }
      return;
    case 'jobs': {
      let wave = 0;
      for (let t = e.atSeconds; t < end; t += e.repeatSeconds ?? Infinity) {
        const w = wave++;
        timeline.schedule(msAt(ctx, t), () => {
          for (let k = 0; k < e.count; k++) {
            const run = Math.max(
              0,
              Math.round(e.runSeconds * (1 + e.runJitter * (2 * random.next() - 1))),
            );
            const name = `${e.name}-${w}-${k}`;
            ctx.jobs.add({
              name,
              namespace: e.pod.namespace,
              template: workTemplate(e.pod, run, { 'job-wave': `${e.name}-${w}` }),
              completions: e.completions,
              parallelism: e.parallelism,
            });
          }
          recorder.scenario(
            'jobs',
            `${e.count} Job(s) ${e.name} wave ${w}: ${e.completions} pod(s) each, ~${formatSeconds(e.runSeconds)}`,
          );
        });
        if (e.repeatSeconds === undefined) break;
      }
      return;
    }
    case 'trace':
      for (const row of e.rows) {
        if (row.arrivalSeconds >= end) continue;
        timeline.schedule(msAt(ctx, row.arrivalSeconds), () => {
          ctx.jobs.add({
            name: `trace${index}-${row.line}`,
            namespace: row.pod.namespace,
            template: workTemplate(row.pod, row.runSeconds, {}),
            completions: 1,
            parallelism: 1,
            owner: row.owner ?? null,
            replaceLost: row.owner !== undefined,
          });
        });
      }
      return;
    case 'spotInterruptions': {
      const times =
        e.ratePerHour === undefined
          ? e.atSeconds
          : poissonTimes(
              e.ratePerHour,
              e.fromSeconds,
              Math.min(e.toSeconds, end),
              new SeededRandom(scenario.seed, `event:${index}:times`),
            );
      for (const t of times)
        timeline.schedule(msAt(ctx, t), () =>
          interruptSpotNode(ctx, e.selector, e.noticeSeconds, random),
        );
      return;
    }
    case 'capacityError': {
      let remove: (() => void) | undefined;
      const what = [
        e.capacityType,
        e.instanceType ?? 'every instance type',
        e.zone ? `in ${e.zone}` : 'in every zone',
      ]
        .filter(Boolean)
        .join(' ');
      timeline.schedule(msAt(ctx, e.fromSeconds), () => {
        remove = ctx.setup.cluster.cloud.injectInsufficientCapacity({
          ...(e.instanceType !== undefined ? { instanceType: e.instanceType } : {}),
          ...(e.zone !== undefined ? { zone: e.zone } : {}),
          ...(e.capacityType !== undefined ? { capacityType: e.capacityType } : {}),
        });
        recorder.scenario('capacityError', `launches of ${what} fail with insufficient capacity`);
      });
      if (e.toSeconds < end)
        timeline.schedule(msAt(ctx, e.toSeconds), () => {
          remove?.();
          recorder.scenario('capacityError', `capacity of ${what} is back`);
        });
      return;
    }
    case 'nodePoolChange':
      timeline.schedule(msAt(ctx, e.atSeconds), async () => {
        await ctx.setup.cluster.client.patch('NodePool', { name: e.name }, e.patch);
        recorder.scenario(
          'nodePoolChange',
          `NodePool ${e.name} patched with ${JSON.stringify(e.patch)}`,
        );
      });
      return;
    case 'nodeClassChange':
      timeline.schedule(msAt(ctx, e.atSeconds), async () => {
        const { client, cloud } = ctx.setup.cluster;
        const current = ctx.setup.nodeClasses.get(e.name);
        if (current === undefined) {
          recorder.scenario(
            'nodeClassChange',
            `no NodeClass ${e.name} on this cloud: nothing changed`,
          );
          return;
        }
        const group = current.apiVersion.split('/')[0] ?? '';
        const updated = await client.patch(
          'NodeClass',
          { name: e.name, nodeClass: { group, kind: current.kind } },
          e.patch,
        );
        ctx.setup.nodeClasses.set(e.name, { ...current, spec: updated.spec ?? {} });
        let drifted = 0;
        for (const claim of await client.list('NodeClaim')) {
          if (
            claim.spec.nodeClassRef.name !== e.name ||
            claim.metadata.deletionTimestamp !== undefined
          )
            continue;
          cloud.setDrifted(claim.metadata.name ?? '', 'NodeClassDrift');
          drifted++;
        }
        // The NodeClaims' drift resync notices a provider drift; make sure the run is awake then.
        ctx.timeline.schedule(
          ctx.setup.cluster.clock.now() + (DriftRequeueSeconds + 1) * 1000,
          () => {},
        );
        recorder.scenario(
          'nodeClassChange',
          `NodeClass ${e.name} patched with ${JSON.stringify(e.patch)}: ${drifted} NodeClaim(s) drifted`,
        );
      });
      return;
    case 'nodeFailure':
      timeline.schedule(msAt(ctx, e.atSeconds), () => failNodes(ctx, e.count, e.selector, random));
      return;
  }
}

/** Arrival times of a Poisson process of `ratePerHour` in [from, to), whole seconds. */
function poissonTimes(
  ratePerHour: number,
  from: number,
  to: number,
  random: SeededRandom,
): number[] {
  const out: number[] = [];
  const mean = 3600 / ratePerHour;
  for (let t = from + random.exponential(mean); t < to; t += random.exponential(mean))
    out.push(Math.floor(t));
  return out;
}
