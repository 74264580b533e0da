/**
 * The reference scheduling benchmark workload (/work/shared/bench/scheduling-benchmark.md,
 * upstream `scheduling_benchmark_test.go`): 400 fake instance types, one NodePool with large
 * limits, the "diverse" pod mix and the 4,000 preference pods.
 */
import type { NodePool, Pod } from '@karpenter-ts/api';
import {
  instanceTypes,
  nodePool,
  pod,
  type TestInstanceType,
} from '@karpenter-ts/scheduling/testing';
import { SeededRandom } from './rng.js';

const Labels = {
  TopologyZone: 'topology.kubernetes.io/zone',
  Hostname: 'kubernetes.io/hostname',
} as const;

/** The seed of the reference benchmark. */
export const SEED = 42;
/** Sizes of the diverse mix. */
export const DIVERSE_SIZES = [1, 50, 100, 500, 1000, 1500, 2000, 5000, 10000, 20000];
/** Pods of the preference mix. */
export const PREFERENCE_PODS = 4000;

const CPUS = ['100m', '250m', '500m', '1000m', '1500m'];
const MEMORIES = ['100Mi', '256Mi', '512Mi', '1024Mi', '2048Mi', '4096Mi'];
const LABEL_VALUES = ['a', 'b', 'c', 'd', 'e', 'f', 'g'];

/** The NodePool: no requirements beyond the defaults, limits cpu 10,000,000 and memory 10,000,000Gi. */
export function benchmarkNodePool(): NodePool {
  return nodePool({
    name: 'default',
    labels: { 'testing/cluster': 'unspecified' },
    limits: { cpu: '10000000', memory: '10000000Gi' },
  });
}

/** Size of the `--large` diverse case (not part of the reference sizes). */
export const LARGE_DIVERSE_SIZE = 200_000;

/**
 * The NodePool of the `--large` case: the reference pool without limits. With the reference
 * limits, 200,000 pods cannot fit: every new node claim counts against the limits as its largest
 * option (400 cpu, 800Gi), and `memory: 10000000Gi` (clamped to 2^53 bytes) runs out after
 * about 10,500 node claims, where this case needs 40,000.
 */
export function largeBenchmarkNodePool(): NodePool {
  return nodePool({ name: 'default', labels: { 'testing/cluster': 'unspecified' } });
}

/** Sizes of the pending-heavy cases (`--large` adds {@link LARGE_PENDING_SIZE}). */
export const PENDING_SIZES = [20000];
/** Size of the `--large` pending-heavy case. */
export const LARGE_PENDING_SIZE = 200_000;

/**
 * The NodePool of the pending-heavy cases: the reference pool with the limit of the AWS
 * getting-started default NodePool, `cpu: 1000`. Every new node claim counts against it as its
 * largest option (up to 400 cpu of the 400 fake types), so the pool is used up after a handful
 * of claims and nearly every pod of a large batch stays pending.
 */
export function pendingNodePool(): NodePool {
  return nodePool({
    name: 'default',
    labels: { 'testing/cluster': 'unspecified' },
    limits: { cpu: '1000' },
  });
}

/** 400 instance types `fake-it-0..399`. */
export function benchmarkInstanceTypes(): TestInstanceType[] {
  return instanceTypes(400);
}

function requests(rng: SeededRandom): Record<string, string> {
  return { cpu: rng.pick(CPUS), memory: rng.pick(MEMORIES) };
}

/**
 * The diverse mix of `n` pods: five equal groups of floor(n/5) — generic, zonal spread,
 * hostname spread, zonal self-affinity, hostname anti-affinity — and the remainder generic.
 */
export function diversePods(n: number, rng = new SeededRandom(SEED)): Pod[] {
  const fifth = Math.floor(n / 5);
  const pods: Pod[] = [];
  const generic = (count: number) => {
    for (let i = 0; i < count; i++) {
      pods.push(pod({ labels: { 'my-label': rng.pick(LABEL_VALUES) }, requests: requests(rng) }));
    }
  };
  const spreadOver = (key: string) => {
    for (let i = 0; i < fifth; i++) {
      pods.push(
        pod({
          labels: { 'my-label': rng.pick(LABEL_VALUES) },
          requests: requests(rng),
          topologySpreadConstraints: [
            {
              topologyKey: key,
              maxSkew: 1,
              whenUnsatisfiable: 'DoNotSchedule',
              labelSelector: { matchLabels: { 'my-label': rng.pick(LABEL_VALUES) } },
            },
          ],
        }),
      );
    }
  };
  generic(fifth);
  spreadOver(Labels.TopologyZone);
  spreadOver(Labels.Hostname);
  for (let i = 0; i < fifth; i++) {
    const value = rng.pick(LABEL_VALUES);
    pods.push(
      pod({
        labels: { 'my-affininity': value },
        requests: requests(rng),
        podAffinity: [
          {
            topologyKey: Labels.TopologyZone,
            labelSelector: { matchLabels: { 'my-affininity': value } },
          },
        ],
      }),
    );
  }
  for (let i = 0; i < fifth; i++) {
    pods.push(
      pod({
        labels: { app: 'nginx' },
        requests: requests(rng),
        podAntiAffinity: [
          { topologyKey: Labels.Hostname, labelSelector: { matchLabels: { app: 'nginx' } } },
        ],
      }),
    );
  }
  generic(n - 5 * fifth);
  return pods;
}

/**
 * `n` generic pods as workload manifests give them: requests from the reference distributions,
 * the workload's label, and a `kubernetes.io/os: linux` node selector.
 */
export function genericPods(n: number, rng = new SeededRandom(SEED)): Pod[] {
  return Array.from({ length: n }, () =>
    pod({
      labels: { app: rng.pick(LABEL_VALUES) },
      requests: requests(rng),
      nodeSelector: { 'kubernetes.io/os': 'linux' },
    }),
  );
}

/**
 * The preference mix: every pod `app: nginx`, preferring zone test-zone-1, with a preferred
 * anti-affinity (weight 10) to `app: nginx` over zone and one (weight 1) over hostname.
 */
export function preferencePods(n = PREFERENCE_PODS, rng = new SeededRandom(SEED)): Pod[] {
  return Array.from({ length: n }, () =>
    pod({
      labels: { app: 'nginx' },
      requests: requests(rng),
      nodePreferences: [
        {
          weight: 1,
          matchExpressions: [{ key: Labels.TopologyZone, operator: 'In', values: ['test-zone-1'] }],
        },
      ],
      preferredPodAntiAffinity: [
        {
          weight: 10,
          podAffinityTerm: {
            topologyKey: Labels.TopologyZone,
            labelSelector: { matchLabels: { app: 'nginx' } },
          },
        },
        {
          weight: 1,
          podAffinityTerm: {
            topologyKey: Labels.Hostname,
            labelSelector: { matchLabels: { app: 'nginx' } },
          },
        },
      ],
    }),
  );
}
