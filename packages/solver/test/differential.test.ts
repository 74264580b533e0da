// Differential properties: random catalogs and random operation sequences run against the WASM
// solver, the TypeScript twin and the brute-force reference model, which must agree on every
// output at every step.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  createTsSolver,
  createWasmSolverSync,
  type Solver,
  type SolverCatalog,
  type SolverOptions,
} from '../src/index.js';
import { ReferenceSolver } from './reference-solver.js';

// Caps each property's wall time; a failure found before the cap is still reported, with the
// smallest counterexample shrinking reached (shrinking long sequences can otherwise run for minutes).
const LIMIT_MS = 25_000;

interface Setup {
  readonly typeCount: number;
  readonly resourceCount: number;
  /** Largest value drawn; small scales make fits and misses both common. */
  readonly scale: number;
}

type Op =
  | { op: 'open'; req: number[]; mask: number[] }
  | { op: 'find'; req: number[]; mask: number[]; after: number }
  | { op: 'claimFit'; claim: number; req: number[]; mask: number[] }
  | { op: 'commit'; claim: number; req: number[]; mask: number[]; useFit: boolean }
  | { op: 'close'; claim: number }
  | { op: 'fitTypes'; req: number[]; mask: number[] }
  | { op: 'claimFitCommit'; claim: number; req: number[]; mask: number[] }
  | { op: 'openWithPod'; req: number[]; mask: number[] };

const setupArb: fc.Arbitrary<Setup> = fc.record({
  typeCount: fc.oneof(fc.integer({ min: 1, max: 40 }), fc.integer({ min: 1, max: 300 })),
  resourceCount: fc.integer({ min: 1, max: 6 }),
  scale: fc.constantFrom(8, 1000, 2 ** 40),
});

function valueArb(max: number): fc.Arbitrary<number> {
  return fc.bigInt({ min: 0n, max: BigInt(max) }).map(Number);
}

// Requests are mostly much smaller than allocatable so claims take several pods before filling
// up, and sometimes as large, so misses and bucket-bound tightening happen too.
function requestArb(s: Setup): fc.Arbitrary<number[]> {
  const value = fc.oneof(
    { weight: 4, arbitrary: valueArb(Math.max(1, Math.floor(s.scale / 16))) },
    { weight: 2, arbitrary: valueArb(Math.max(1, Math.floor(s.scale / 4))) },
    { weight: 1, arbitrary: valueArb(s.scale) },
  );
  return fc.array(value, { minLength: s.resourceCount, maxLength: s.resourceCount });
}

// Masks: all rows, random words (sometimes with bits beyond typeCount), or sparse words.
function maskArb(s: Setup): fc.Arbitrary<number[]> {
  const words = Math.ceil(s.typeCount / 32);
  const word = fc.integer({ min: 0, max: 0xffffffff });
  return fc.oneof(
    { weight: 3, arbitrary: fc.constant(Array.from({ length: words }, () => 0xffffffff)) },
    { weight: 1, arbitrary: fc.array(word, { minLength: words, maxLength: words }) },
    {
      weight: 1,
      arbitrary: fc.array(
        fc.tuple(word, word).map(([a, b]) => (a & b) >>> 0),
        { minLength: words, maxLength: words },
      ),
    },
  );
}

function opArb(s: Setup): fc.Arbitrary<Op> {
  const req = requestArb(s);
  const mask = maskArb(s);
  const claim = fc.nat({ max: 1000 });
  return fc.oneof(
    { weight: 3, arbitrary: fc.record({ op: fc.constant('open' as const), req, mask }) },
    {
      weight: 4,
      arbitrary: fc.record({
        op: fc.constant('find' as const),
        req,
        mask,
        after: fc.oneof(fc.constant(-1), claim),
      }),
    },
    { weight: 2, arbitrary: fc.record({ op: fc.constant('claimFit' as const), claim, req, mask }) },
    {
      weight: 4,
      arbitrary: fc.record({
        op: fc.constant('commit' as const),
        claim,
        req,
        mask,
        useFit: fc.boolean(),
      }),
    },
    { weight: 1, arbitrary: fc.record({ op: fc.constant('close' as const), claim }) },
    { weight: 1, arbitrary: fc.record({ op: fc.constant('fitTypes' as const), req, mask }) },
    {
      weight: 3,
      arbitrary: fc.record({ op: fc.constant('claimFitCommit' as const), claim, req, mask }),
    },
    { weight: 2, arbitrary: fc.record({ op: fc.constant('openWithPod' as const), req, mask }) },
  );
}

const scenarioArb = setupArb.chain((s) =>
  fc.record({
    setup: fc.constant(s),
    allocatable: fc.array(valueArb(s.scale), {
      minLength: s.typeCount * s.resourceCount,
      maxLength: s.typeCount * s.resourceCount,
    }),
    // claims opened up front, so ids span several 32-claim words and buckets
    initial: fc.array(fc.record({ req: requestArb(s), mask: maskArb(s) }), {
      maxLength: 150,
      size: 'max',
    }),
    ops: fc.array(opArb(s), { minLength: 1, maxLength: 120, size: 'max' }),
  }),
);

function catalogFor(s: Setup, allocatable: number[]): SolverCatalog {
  return {
    resourceNames: Array.from({ length: s.resourceCount }, (_, r) => `resource-${r}`),
    typeCount: s.typeCount,
    allocatable: Float64Array.from(allocatable),
  };
}

type Model = Pick<
  Solver,
  'claimCount' | 'claimRequests' | 'claimMask' | 'claimPods' | 'findClaim' | 'commit'
> & {
  openClaim(requests: Float64Array, mask: Uint32Array): number;
  close(claim: number): void;
};

function expectSameClaim(models: readonly Model[], c: number): void {
  const [first, ...rest] = models;
  for (const other of rest) {
    expect(other.claimPods(c)).toBe(first!.claimPods(c));
    expect(Array.from(other.claimRequests(c))).toEqual(Array.from(first!.claimRequests(c)));
    expect(Array.from(other.claimMask(c))).toEqual(Array.from(first!.claimMask(c)));
  }
}

function expectSameClaims(models: readonly Model[]): void {
  for (const other of models) expect(other.claimCount).toBe(models[0]!.claimCount);
  for (let c = 0; c < models[0]!.claimCount; c++) expectSameClaim(models, c);
}

// The default fit index keeps every distinct value of these small catalogs as a threshold; one
// and three thresholds per resource make most fits go through the exact band checks instead.
const INDEX_OPTIONS: { name: string; options: SolverOptions }[] = [
  { name: 'default fit index', options: {} },
  { name: 'fit index of 3 thresholds', options: { maxThresholds: 3 } },
  { name: 'fit index of 1 threshold', options: { maxThresholds: 1 } },
];

describe.each(INDEX_OPTIONS)(
  'wasm and ts solvers against the reference model ($name)',
  ({ options }) => {
    it('agree on every output of random operation sequences over random catalogs', () => {
      const wasm = createWasmSolverSync(options);
      const ts = createTsSolver(options);
      fc.assert(
        fc.property(scenarioArb, ({ setup, allocatable, initial, ops }) => {
          const catalog = catalogFor(setup, allocatable);
          wasm.load(catalog);
          ts.load(catalog);
          const ref = new ReferenceSolver(catalog);
          const W = wasm.maskWords;
          for (const c of initial) {
            const [requests, mask] = [Float64Array.from(c.req), Uint32Array.from(c.mask)];
            for (const m of [ref, wasm, ts]) m.openClaim(requests, mask);
          }
          for (const o of ops) {
            const requests = 'req' in o ? Float64Array.from(o.req) : new Float64Array(0);
            const mask = 'mask' in o ? Uint32Array.from(o.mask) : new Uint32Array(0);
            const n = ref.claimCount;
            switch (o.op) {
              case 'open': {
                const id = ref.openClaim(requests, mask);
                expect(wasm.openClaim(requests, mask)).toBe(id);
                expect(ts.openClaim(requests, mask)).toBe(id);
                expectSameClaim([ref, wasm, ts], id);
                break;
              }
              case 'find': {
                const after = o.after === -1 || n === 0 ? -1 : o.after % n;
                const want = ref.findClaim(requests, mask, after);
                expect(wasm.findClaim(requests, mask, after)).toBe(want);
                expect(ts.findClaim(requests, mask, after)).toBe(want);
                break;
              }
              case 'fitTypes': {
                const want = ref.fitTypes(requests, mask);
                const [a, b] = [new Uint32Array(W), new Uint32Array(W)];
                expect(wasm.fitTypes(requests, mask, a)).toBe(want.count);
                expect(ts.fitTypes(requests, mask, b)).toBe(want.count);
                expect(Array.from(a)).toEqual(Array.from(want.out));
                expect(Array.from(b)).toEqual(Array.from(want.out));
                break;
              }
              case 'claimFit': {
                if (n === 0) break;
                const c = o.claim % n;
                const want = ref.claimFit(c, requests, mask);
                const [a, b] = [new Uint32Array(W), new Uint32Array(W)];
                expect(wasm.claimFit(c, requests, mask, a)).toBe(want.count);
                expect(ts.claimFit(c, requests, mask, b)).toBe(want.count);
                expect(Array.from(a)).toEqual(Array.from(want.out));
                expect(Array.from(b)).toEqual(Array.from(want.out));
                break;
              }
              case 'commit': {
                if (n === 0) break;
                const c = o.claim % n;
                const next = o.useFit ? ref.claimFit(c, requests, mask).out : mask;
                for (const m of [ref, wasm, ts]) m.commit(c, requests, next);
                expectSameClaim([ref, wasm, ts], c);
                break;
              }
              case 'close': {
                if (n === 0) break;
                for (const m of [ref, wasm, ts]) m.close(o.claim % n);
                break;
              }
              case 'claimFitCommit': {
                if (n === 0) break;
                const c = o.claim % n;
                const want = ref.claimFitCommit(c, requests, mask);
                const [a, b] = [new Uint32Array(W), new Uint32Array(W)];
                expect(wasm.claimFitCommit(c, requests, mask, a)).toBe(want.count);
                expect(ts.claimFitCommit(c, requests, mask, b)).toBe(want.count);
                expect(Array.from(a)).toEqual(Array.from(want.out));
                expect(Array.from(b)).toEqual(Array.from(want.out));
                expectSameClaim([ref, wasm, ts], c);
                break;
              }
              case 'openWithPod': {
                const want = ref.openWithPod(requests, mask);
                const [a, b] = [new Uint32Array(W), new Uint32Array(W)];
                expect(wasm.openWithPod(requests, mask, a)).toBe(want.id);
                expect(ts.openWithPod(requests, mask, b)).toBe(want.id);
                expect(Array.from(a)).toEqual(Array.from(want.out));
                expect(Array.from(b)).toEqual(Array.from(want.out));
                if (want.id >= 0) expectSameClaim([ref, wasm, ts], want.id);
                break;
              }
            }
          }
          expectSameClaims([ref, wasm, ts]);
        }),
        { numRuns: 100, interruptAfterTimeLimit: LIMIT_MS },
      );
    });

    it('agree when driven like the scheduler: find, skip some candidates, commit or open', () => {
      const wasm = createWasmSolverSync(options);
      const ts = createTsSolver(options);
      const podArb = (s: Setup) =>
        fc.record({
          req: requestArb(s),
          mask: maskArb(s),
          skips: fc.nat({ max: 3 }),
          // the scheduler's fast path: one combined call where it needs no look at the rows first
          combined: fc.boolean(),
        });
      const drivenArb = setupArb.chain((s) =>
        fc.record({
          setup: fc.constant(s),
          allocatable: fc.array(valueArb(s.scale), {
            minLength: s.typeCount * s.resourceCount,
            maxLength: s.typeCount * s.resourceCount,
          }),
          // existing nodes modelled as claims, so pods spread over many buckets and words
          existing: fc.array(fc.record({ req: requestArb(s), mask: maskArb(s) }), {
            maxLength: 100,
            size: 'max',
          }),
          pods: fc.array(podArb(s), { minLength: 1, maxLength: 200, size: 'max' }),
        }),
      );
      fc.assert(
        fc.property(drivenArb, ({ setup, allocatable, existing, pods }) => {
          const catalog = catalogFor(setup, allocatable);
          wasm.load(catalog);
          ts.load(catalog);
          const ref = new ReferenceSolver(catalog);
          const W = wasm.maskWords;
          for (const c of existing) {
            const [requests, mask] = [Float64Array.from(c.req), Uint32Array.from(c.mask)];
            for (const m of [ref, wasm, ts]) m.openClaim(requests, mask);
          }
          for (const pod of pods) {
            const requests = Float64Array.from(pod.req);
            const mask = Uint32Array.from(pod.mask);
            // the scheduler rejects the first `skips` candidates for reasons outside the solver
            let after = -1;
            let chosen = -1;
            for (let k = 0; k <= pod.skips; k++) {
              const want = ref.findClaim(requests, mask, after);
              expect(wasm.findClaim(requests, mask, after)).toBe(want);
              expect(ts.findClaim(requests, mask, after)).toBe(want);
              if (want === -1) break;
              if (k === pod.skips) chosen = want;
              after = want;
            }
            if (chosen >= 0 && pod.combined) {
              const want = ref.claimFitCommit(chosen, requests, mask);
              const [a, b] = [new Uint32Array(W), new Uint32Array(W)];
              expect(wasm.claimFitCommit(chosen, requests, mask, a)).toBe(want.count);
              expect(ts.claimFitCommit(chosen, requests, mask, b)).toBe(want.count);
              expect(Array.from(a)).toEqual(Array.from(want.out));
              expect(Array.from(b)).toEqual(Array.from(want.out));
            } else if (chosen >= 0) {
              const want = ref.claimFit(chosen, requests, mask);
              const out = new Uint32Array(W);
              expect(wasm.claimFit(chosen, requests, mask, out)).toBe(want.count);
              expect(ts.claimFit(chosen, requests, mask, out)).toBe(want.count);
              for (const m of [ref, wasm, ts]) m.commit(chosen, requests, want.out);
            } else if (pod.combined) {
              const want = ref.openWithPod(requests, mask);
              const [a, b] = [new Uint32Array(W), new Uint32Array(W)];
              expect(wasm.openWithPod(requests, mask, a)).toBe(want.id);
              expect(ts.openWithPod(requests, mask, b)).toBe(want.id);
              expect(Array.from(a)).toEqual(Array.from(want.out));
            } else {
              const fit = ref.fitTypes(requests, mask);
              if (fit.count === 0) continue;
              const id = ref.openClaim(new Float64Array(setup.resourceCount), fit.out);
              expect(wasm.openClaim(new Float64Array(setup.resourceCount), fit.out)).toBe(id);
              expect(ts.openClaim(new Float64Array(setup.resourceCount), fit.out)).toBe(id);
              for (const m of [ref, wasm, ts]) m.commit(id, requests, fit.out);
            }
          }
          expectSameClaims([ref, wasm, ts]);
        }),
        { numRuns: 150, interruptAfterTimeLimit: LIMIT_MS },
      );
    });
  },
);

describe('orderRows', () => {
  // The specification: row indices sorted by their lanes left to right, then by index.
  const reference = (keys: Float64Array, width: number): number[] =>
    Array.from({ length: keys.length / width }, (_, i) => i).sort((a, b) => {
      for (let k = 0; k < width; k++) {
        const [x, y] = [keys[a * width + k]!, keys[b * width + k]!];
        if (x !== y) return x < y ? -1 : 1;
      }
      return a - b;
    });

  it('orders rows of keys like a stable lexicographic sort, in both solvers and both WASM paths', () => {
    const wasm = createWasmSolverSync();
    // every block over the limit: the WASM solver's TypeScript path for large blocks
    const wasmOutsideCore = createWasmSolverSync({ coreSortMaxKeyBytes: 0 });
    const ts = createTsSolver();
    const lane = fc.oneof(
      fc.integer({ min: -3, max: 3 }),
      fc.constantFrom(-0, Infinity, -Infinity, 2 ** 52, -(2 ** 53 - 1)),
      fc.double({ noNaN: true }),
    );
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 4 }).chain((width) =>
          fc.record({
            width: fc.constant(width),
            keys: fc.array(fc.array(lane, { minLength: width, maxLength: width }), {
              maxLength: 200,
            }),
          }),
        ),
        ({ width, keys }) => {
          const flat = Float64Array.from(keys.flat());
          const want = reference(flat, width);
          for (const solver of [wasm, wasmOutsideCore, ts]) {
            const order = new Int32Array(keys.length);
            solver.orderRows(flat, width, order);
            expect(Array.from(order)).toEqual(want);
          }
        },
      ),
      { numRuns: 300, interruptAfterTimeLimit: LIMIT_MS },
    );
  });
});
