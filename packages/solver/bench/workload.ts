// The benchmark's synthetic batch: a 400-row catalog, claims and pods drawn from a seeded PRNG
// so every run (and both solvers) see exactly the same input.
import { fullMask, maskFromRows, type SolverCatalog } from '@karpenter-ts/solver';

const GiB = 1024 ** 3;
const MiB = 1024 ** 2;

/** mulberry32: a tiny deterministic PRNG returning floats in [0, 1). */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const CORES = [2, 4, 8, 16, 32, 48, 64, 96];
const GIB_PER_CORE = [2, 4, 8];

/** Cores of catalog row `t` (rows cycle through the size ladder). */
export function rowCores(t: number): number {
  return CORES[t % CORES.length]!;
}

/**
 * `rows` instance-type rows over cpu (millicores), memory (bytes), pods and ephemeral-storage
 * (bytes), allocatable after a small, row-dependent overhead.
 */
export function benchCatalog(rows: number): SolverCatalog {
  const allocatable = new Float64Array(rows * 4);
  for (let t = 0; t < rows; t++) {
    const cores = rowCores(t);
    const gib = cores * GIB_PER_CORE[(t >> 3) % GIB_PER_CORE.length]!;
    allocatable[t * 4] = cores * 1000 - 80 - (t % 5) * 10;
    allocatable[t * 4 + 1] = gib * GiB - 750 * MiB - (t % 7) * MiB;
    allocatable[t * 4 + 2] = Math.min(250, 30 + cores * 8);
    allocatable[t * 4 + 3] = (100 + (t % 7)) * GiB;
  }
  return {
    resourceNames: ['cpu', 'memory', 'pods', 'ephemeral-storage'],
    typeCount: rows,
    allocatable,
  };
}

export interface BenchPod {
  readonly requests: Float64Array;
  readonly mask: Uint32Array;
}

/**
 * Claims' starting requests (daemonset-like overhead plus some existing load) and option masks:
 * small and medium sizes (2-16 cores) of one of five families, so claims fill after a handful of
 * pods and later pods must skip many full claims, which is the case the solver must make cheap.
 */
export function benchClaims(rows: number, count: number, seed: number): BenchPod[] {
  const rnd = prng(seed);
  const claims: BenchPod[] = [];
  for (let i = 0; i < count; i++) {
    const family = Math.floor(rnd() * 5);
    const maxCores = [2, 4, 8, 16][Math.floor(rnd() * 4)]!;
    const picked: number[] = [];
    for (let t = 0; t < rows; t++) {
      if ((t >> 4) % 5 === family && rowCores(t) <= maxCores) picked.push(t);
    }
    claims.push({
      requests: Float64Array.of(
        200 + Math.floor(rnd() * 4) * 250,
        512 * MiB + Math.floor(rnd() * 4) * 256 * MiB,
        3,
        GiB,
      ),
      mask: maskFromRows(rows, picked),
    });
  }
  return claims;
}

/** Pods of common web/worker shapes; 30% are restricted to half the rows (e.g. one arch). */
export function benchPods(rows: number, count: number, seed: number): BenchPod[] {
  const rnd = prng(seed);
  const everywhere = fullMask(rows);
  const half = maskFromRows(
    rows,
    Array.from({ length: rows }, (_, t) => t).filter((t) => t % 2 === 0),
  );
  const cpu = [100, 250, 500, 1000, 2000];
  const mem = [128, 256, 512, 1024, 2048, 4096].map((m) => m * MiB);
  const pods: BenchPod[] = [];
  for (let i = 0; i < count; i++) {
    pods.push({
      requests: Float64Array.of(
        cpu[Math.floor(rnd() * cpu.length)]!,
        mem[Math.floor(rnd() * mem.length)]!,
        1,
        rnd() < 0.2 ? GiB : 0,
      ),
      mask: rnd() < 0.3 ? half : everywhere,
    });
  }
  return pods;
}
