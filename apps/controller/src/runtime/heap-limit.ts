/**
 * `--memory-limit` for Node: the V8 heap limit the controller runs with.
 *
 * Upstream sets Go's GC soft limit to 90 % of `MEMORY_LIMIT`, so the
 * runtime collects harder before the container reaches its limit. V8 has no soft limit over the
 * whole process: `--max-old-space-size` caps only the old generation, is fixed when the process
 * starts, and Node 20 otherwise sizes it at about a quarter of the cgroup's limit. So the binary
 * restarts itself once with the flag (runtime/heap-relaunch.ts), sized so that what the process
 * tree holds stays within those same 90 %:
 *
 *     old space MiB = floor(90 % of the limit in MiB) - 176
 *
 * where 176 MiB is what lives outside the old generation in the same container: V8's young
 * generation (48 MiB on 64-bit, counted in `heap_size_limit`), the launcher process that waits
 * for the controller (~50 MiB resident, measured) and the controller's code, native memory,
 * buffers and WebAssembly outside the V8 heap (~80 MiB resident after start, measured), rounded up
 * to 128 MiB together. Giving the old space the whole 90 % would let V8 grow its heap past the
 * container's limit before it collects hard, and the kernel's OOM kill (no graceful shutdown)
 * would come before V8's own limit.
 */

/** Bytes in a MiB. */
export const MiB = 1024 * 1024;

/** The share of `--memory-limit` upstream's GC aims under (its `GOMEMLIMIT`), as a fraction. */
export const MEMORY_LIMIT_FRACTION = 0.9;

/** MiB of V8's young generation on 64-bit Node 20 (3 × 16 MiB semi-spaces), outside the old space. */
export const YOUNG_GENERATION_MIB = 48;

/** MiB the sizing leaves for the launcher and the controller's memory outside the V8 heap. */
export const NON_HEAP_RESERVE_MIB = 128;

/** The smallest old space the controller is started with, MiB (its heap holds ~60 MiB after start). */
export const MIN_OLD_SPACE_MIB = 128;

/** The smallest `--memory-limit` accepted, MiB: the one that leaves {@link MIN_OLD_SPACE_MIB}. */
export const MIN_MEMORY_LIMIT_MIB = Math.ceil(
  (MIN_OLD_SPACE_MIB + YOUNG_GENERATION_MIB + NON_HEAP_RESERVE_MIB) / MEMORY_LIMIT_FRACTION,
);

/**
 * The environment variable the launcher sets on the controller it starts: its value is the old
 * space in MiB. A process that finds it set never relaunches (no loop, whatever Node did with the
 * flag).
 */
export const HEAP_SIZED_ENV = 'KARPENTER_TS_HEAP_SIZED';

/** What the binary does about the heap before it starts the operator. */
export type HeapPlan =
  /** Run as is: no limit, the user chose the heap size, or this is the relaunched controller. */
  | { readonly kind: 'keep'; readonly reason: 'no-memory-limit' | 'node-option' | 'relaunched' }
  /** Restart once with `--max-old-space-size=<oldSpaceMiB>`. */
  | { readonly kind: 'relaunch'; readonly oldSpaceMiB: number }
  /** The limit is too small to run in; `message` names `--memory-limit` and the minimum. */
  | { readonly kind: 'refuse'; readonly message: string };

/** What {@link planHeapLimit} looks at. */
export interface HeapPlanInput {
  /** `--memory-limit` in bytes; 0 or less (the default -1) means none, as upstream. */
  readonly memoryLimit: number;
  /** Node's own options of this process (`process.execArgv`). */
  readonly execArgv: readonly string[];
  /** The environment (`NODE_OPTIONS`, {@link HEAP_SIZED_ENV}). */
  readonly env: Readonly<Record<string, string | undefined>>;
}

/**
 * Whether Node was told the old space size, in its arguments or in `NODE_OPTIONS` (either
 * spelling: `--max-old-space-size`, `--max_old_space_size`).
 */
export function hasHeapSizeOption(
  execArgv: readonly string[],
  nodeOptions: string | undefined,
): boolean {
  const words = [...execArgv, ...(nodeOptions ?? '').split(/\s+/)];
  return words.some((w) => /^--max[-_]old[-_]space[-_]size(=|$)/.test(w));
}

/**
 * The old space for a memory limit, MiB (see the module comment), or undefined when the limit is
 * below {@link MIN_MEMORY_LIMIT_MIB} (which leaves at least {@link MIN_OLD_SPACE_MIB}).
 */
export function oldSpaceForMemoryLimit(memoryLimitBytes: number): number | undefined {
  if (memoryLimitBytes < MIN_MEMORY_LIMIT_MIB * MiB) return undefined;
  // 9 / 10 in integers: exact where a float 0.9 could round a boundary down.
  const budgetMiB = Math.floor((memoryLimitBytes * 9) / (10 * MiB));
  return budgetMiB - YOUNG_GENERATION_MIB - NON_HEAP_RESERVE_MIB;
}

/** Decides what the binary does about the heap (see {@link HeapPlan}); never throws. */
export function planHeapLimit(input: HeapPlanInput): HeapPlan {
  if (input.memoryLimit <= 0) return { kind: 'keep', reason: 'no-memory-limit' };
  if (input.env[HEAP_SIZED_ENV] !== undefined) return { kind: 'keep', reason: 'relaunched' };
  if (hasHeapSizeOption(input.execArgv, input.env['NODE_OPTIONS'])) {
    return { kind: 'keep', reason: 'node-option' };
  }
  const oldSpaceMiB = oldSpaceForMemoryLimit(input.memoryLimit);
  if (oldSpaceMiB === undefined) {
    const given = Math.floor(input.memoryLimit / MiB);
    return {
      kind: 'refuse',
      message:
        `--memory-limit (MEMORY_LIMIT) ${input.memoryLimit} bytes (${given} MiB) is too small: ` +
        `the controller needs at least ${MIN_MEMORY_LIMIT_MIB} MiB ` +
        `(${MIN_MEMORY_LIMIT_MIB * MiB} bytes), or set --max-old-space-size in NODE_OPTIONS yourself`,
    };
  }
  return { kind: 'relaunch', oldSpaceMiB };
}
