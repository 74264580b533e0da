import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createCloud } from '../src/clouds/select.js';
import { CliError, UsageError } from '../src/errors.js';
import { parseManifestText } from '../src/manifests/parse.js';
import { simulate } from '../src/simulation/simulate.js';

const SCENARIO = '../../benchmarks/scenarios/large-backlog.yaml';
const NOW = new Date('2026-01-02T03:04:05Z');

describe('simulate of a large pending backlog', () => {
  // The benchmark's scenario, small: 200 pods under a 100-cpu limit, most of them left pending.
  const text = readFileSync(SCENARIO, 'utf8').replace('cpu: "2000"', 'cpu: "100"');
  const documents = parseManifestText(text, SCENARIO).documents;

  it('stops with a clear error once the pending pods summed over the ticks pass the bound', async () => {
    const run = simulate(documents, createCloud('azure', undefined), {
      now: NOW,
      scale: 0.2,
      maxPendingPodTicks: 1000,
    });
    await expect(run).rejects.toThrow(CliError);
    await expect(run).rejects.toThrow(
      /^simulation stopped: [\d,]+ pods still pending after \d+ s of cluster time and [\d,]+ node claims, over the bound of 1,000 pending pods summed over the provisioning loop's ticks .*use a smaller --scale, or raise the NodePool limits/,
    );
  });

  it('refuses a backlog past the pending-pod cap before building its pods', async () => {
    // The benchmark's 400,000 pods: refused in the expansion's counting pass, not after minutes.
    const full = parseManifestText(readFileSync(SCENARIO, 'utf8'), SCENARIO).documents;
    const run = simulate(full, createCloud('azure', undefined), { now: NOW, scale: 400 });
    await expect(run).rejects.toThrow(UsageError);
    await expect(run).rejects.toThrow(
      /^--scale 400: the input would expand to more than 100,000 pending pods \(Deployment default\/web alone makes 400,000\); use a smaller --scale$/,
    );
  });

  it('refuses an input holding more pending pods than the cap, Pods included', async () => {
    const pods = [1, 2, 3]
      .map(
        (i) =>
          `apiVersion: v1\nkind: Pod\nmetadata: { name: p${i} }\nspec: { containers: [{ name: c, image: nginx, resources: { requests: { cpu: "1" } } }] }\n`,
      )
      .join('---\n');
    const run = simulate(
      parseManifestText(pods, 'pods.yaml').documents,
      createCloud('azure', undefined),
      {
        now: NOW,
        maxPendingPods: 2,
      },
    );
    await expect(run).rejects.toThrow(
      /^the input holds 3 pending pods, more than the 2 a simulation runs \(the provisioning loop re-solves every pending pod on each tick\); use a smaller --scale, or simulate part of the input$/,
    );
  });

  it('settles within the default bound, the pods past the cpu limit left pending', async () => {
    const simulation = await simulate(documents, createCloud('azure', undefined), {
      now: NOW,
      scale: 0.2,
    });
    expect(simulation.pendingPods).toBe(200);
    expect(simulation.nodeClaims.length).toBeGreaterThan(0);
    expect(simulation.podErrors.length).toBeGreaterThan(0);
  });
});
