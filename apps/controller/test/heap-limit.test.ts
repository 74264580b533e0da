import { describe, expect, it } from 'vitest';
import {
  fatalErrorLine,
  HEAP_SIZED_ENV,
  hasHeapSizeOption,
  MIN_MEMORY_LIMIT_MIB,
  MiB,
  oldSpaceForMemoryLimit,
  planHeapLimit,
} from '../src/index.js';

const GiB = 1024 * MiB;
const plan = (memoryLimit: number, execArgv: string[] = [], env: Record<string, string> = {}) =>
  planHeapLimit({ memoryLimit, execArgv, env });

describe('V8 heap sizing for --memory-limit', () => {
  it('leaves the heap alone without a memory limit (the default -1, or 0), as upstream', () => {
    expect(plan(-1)).toEqual({ kind: 'keep', reason: 'no-memory-limit' });
    expect(plan(0)).toEqual({ kind: 'keep', reason: 'no-memory-limit' });
  });

  it('relaunches with an old space of 90 % of the limit less 176 MiB outside it', () => {
    expect(plan(GiB)).toEqual({ kind: 'relaunch', oldSpaceMiB: 921 - 176 });
    expect(plan(4 * GiB)).toEqual({ kind: 'relaunch', oldSpaceMiB: 3686 - 176 });
    // Not MiB-aligned: 500,000,000 bytes × 0.9 = 429.15 MiB, rounded down.
    expect(oldSpaceForMemoryLimit(500_000_000)).toBe(429 - 176);
  });

  it('keeps a heap size the user gave to Node, in its arguments or NODE_OPTIONS, either spelling', () => {
    expect(plan(GiB, ['--max-old-space-size=2048'])).toEqual({
      kind: 'keep',
      reason: 'node-option',
    });
    expect(
      plan(GiB, [], { NODE_OPTIONS: '--enable-source-maps --max_old_space_size=512' }),
    ).toEqual({ kind: 'keep', reason: 'node-option' });
    expect(hasHeapSizeOption(['--max-old-space-size', '512'], undefined)).toBe(true);
    expect(hasHeapSizeOption(['--max-semi-space-size=64'], '--max-old-space-sizes=1')).toBe(false);
  });

  it('never relaunches the process it relaunched', () => {
    expect(plan(GiB, [], { [HEAP_SIZED_ENV]: '745' })).toEqual({
      kind: 'keep',
      reason: 'relaunched',
    });
  });

  it('refuses a limit below the 338 MiB that leave a 128 MiB old space, naming the flag, the variable and the minimum', () => {
    expect(MIN_MEMORY_LIMIT_MIB).toBe(338);
    expect(plan(338 * MiB)).toEqual({ kind: 'relaunch', oldSpaceMiB: 128 });
    const refused = plan(338 * MiB - 1);
    expect(refused.kind).toBe('refuse');
    const message = refused.kind === 'refuse' ? refused.message : '';
    expect(message).toContain(
      '--memory-limit (MEMORY_LIMIT) 354418687 bytes (337 MiB) is too small',
    );
    expect(message).toContain('at least 338 MiB');
  });
});

describe('fatal error line', () => {
  it('is one line with one prefix, whatever the message looked like', () => {
    expect(fatalErrorLine('no kubeconfig')).toBe('karpenter-ts-controller: error: no kubeconfig\n');
    expect(fatalErrorLine("error: unknown option '--x'\n(Did you mean --y?)\n")).toBe(
      "karpenter-ts-controller: error: unknown option '--x' (Did you mean --y?)\n",
    );
  });
});
