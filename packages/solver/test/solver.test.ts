import { describe, expect, it } from 'vitest';
import {
  CORE_SORT_MAX_KEY_BYTES,
  createSolver,
  createTsSolver,
  createWasmSolverSync,
  fullMask,
  rowsOfMask,
} from '../src/index.js';
import { GiB, KINDS, catalogOf, loaded, req, rows, threeSizes } from './builders.js';

describe.each(KINDS)('%s solver', (kind) => {
  describe('load', () => {
    it('reports the catalog shape and starts with no claims', () => {
      const solver = loaded(kind, threeSizes());
      expect(solver.kind).toBe(kind);
      expect(solver.typeCount).toBe(3);
      expect(solver.resourceCount).toBe(3);
      expect(solver.maskWords).toBe(1);
      expect(solver.claimCount).toBe(0);
    });

    it('is empty before the first load', () => {
      const solver = createSolver(kind);
      expect([solver.typeCount, solver.resourceCount, solver.maskWords, solver.claimCount]).toEqual(
        [0, 0, 0, 0],
      );
    });

    it('forgets every claim when a new batch is loaded', () => {
      const solver = loaded(kind, threeSizes());
      solver.openClaim(req(0, 0, 0), fullMask(3));
      solver.load(catalogOf(['cpu'], [[1000]]));
      expect(solver.claimCount).toBe(0);
      expect(solver.maskWords).toBe(1);
      expect(solver.findClaim(req(0), fullMask(1), -1)).toBe(-1);
    });
  });

  describe('fitTypes', () => {
    it('keeps the rows whose allocatable covers the request in every resource', () => {
      const solver = loaded(kind, threeSizes());
      const out = new Uint32Array(1);
      expect(solver.fitTypes(req(3000, 8 * GiB, 1), fullMask(3), out)).toBe(2);
      expect(rowsOfMask(out)).toEqual([1, 2]);
    });

    it('counts a request equal to allocatable as fitting', () => {
      const solver = loaded(kind, threeSizes());
      const out = new Uint32Array(1);
      expect(solver.fitTypes(req(2000, 4 * GiB, 30), fullMask(3), out)).toBe(3);
    });

    it('rejects a row that is short in a single resource', () => {
      const solver = loaded(kind, threeSizes());
      const out = new Uint32Array(1);
      // fits the medium row on cpu and memory but wants more pods than it allows
      expect(solver.fitTypes(req(3000, 8 * GiB, 111), fullMask(3), out)).toBe(1);
      expect(rowsOfMask(out)).toEqual([2]);
    });

    it('only considers rows of the input mask', () => {
      const solver = loaded(kind, threeSizes());
      const out = new Uint32Array(1);
      expect(solver.fitTypes(req(0, 0, 0), rows(3, 0, 2), out)).toBe(2);
      expect(rowsOfMask(out)).toEqual([0, 2]);
    });

    it('never sets bits at or beyond typeCount, even if the input mask has them', () => {
      const solver = loaded(kind, threeSizes());
      const out = new Uint32Array(1);
      expect(solver.fitTypes(req(0, 0, 0), Uint32Array.of(0xffffffff), out)).toBe(3);
      expect(out[0]).toBe(0b111);
    });

    it('handles rows across several mask words, including bit 31', () => {
      const rowsList = Array.from({ length: 70 }, (_, t) => [t * 100]);
      const solver = loaded(kind, catalogOf(['cpu'], rowsList));
      const out = new Uint32Array(3);
      expect(solver.fitTypes(req(3100), fullMask(70), out)).toBe(70 - 31);
      expect(rowsOfMask(out)).toEqual(Array.from({ length: 39 }, (_, i) => i + 31));
      expect(out[0]).toBe(0x80000000);
    });
  });

  describe('openClaim and accessors', () => {
    it('numbers claims 0, 1, 2 in order and records their starting state', () => {
      const solver = loaded(kind, threeSizes());
      expect(solver.openClaim(req(100, GiB, 1), rows(3, 1, 2))).toBe(0);
      expect(solver.openClaim(req(0, 0, 0), rows(3, 0))).toBe(1);
      expect(solver.claimCount).toBe(2);
      expect(Array.from(solver.claimRequests(0))).toEqual([100, GiB, 1]);
      expect(rowsOfMask(solver.claimMask(0))).toEqual([1, 2]);
      expect(solver.claimPods(0)).toBe(0);
    });

    it('returns copies that callers may change freely', () => {
      const solver = loaded(kind, threeSizes());
      solver.openClaim(req(100, GiB, 1), rows(3, 1));
      solver.claimRequests(0)[0] = 999;
      solver.claimMask(0)[0] = 0;
      expect(solver.claimRequests(0)[0]).toBe(100);
      expect(rowsOfMask(solver.claimMask(0))).toEqual([1]);
    });

    it('clears mask bits at or beyond typeCount', () => {
      const solver = loaded(kind, threeSizes());
      solver.openClaim(req(0, 0, 0), Uint32Array.of(0xfffffff0 | 0b010));
      expect(solver.claimMask(0)[0]).toBe(0b010);
    });

    it('grows past its initial capacity for claims and pod counts', () => {
      const solver = loaded(kind, catalogOf(['cpu', 'pods'], [[1_000_000, 1000]]));
      const pod = req(10, 1);
      for (let i = 0; i < 300; i++) expect(solver.openClaim(req(0, 0), fullMask(1))).toBe(i);
      for (let n = 0; n < 40; n++) solver.commit(299, pod, fullMask(1));
      expect(solver.claimPods(299)).toBe(40);
      expect(Array.from(solver.claimRequests(299))).toEqual([400, 40]);
      // claim 299 now sorts last (40 pods); everyone else has 0
      expect(solver.findClaim(pod, fullMask(1), 298)).toBe(299);
      expect(solver.findClaim(pod, fullMask(1), -1)).toBe(0);
    });
  });

  describe('findClaim', () => {
    // one row with room for 10 pods of 100m
    const roomy = () => loaded(kind, catalogOf(['cpu', 'pods'], [[1000, 10]]));
    const pod = req(100, 1);
    const all = fullMask(1);

    it('picks the claim with the fewest pods, then the lowest id', () => {
      const solver = roomy();
      for (let i = 0; i < 3; i++) solver.openClaim(req(0, 0), all);
      solver.commit(0, pod, all);
      expect(solver.findClaim(pod, all, -1)).toBe(1);
      solver.commit(1, pod, all);
      expect(solver.findClaim(pod, all, -1)).toBe(2);
      solver.commit(2, pod, all);
      expect(solver.findClaim(pod, all, -1)).toBe(0);
    });

    it('continues after a cursor in (podCount, id) order', () => {
      const solver = roomy();
      for (let i = 0; i < 4; i++) solver.openClaim(req(0, 0), all);
      solver.commit(0, pod, all); // keys: 1:(0,1) 2:(0,2) 3:(0,3) 0:(1,0)
      expect(solver.findClaim(pod, all, 1)).toBe(2);
      expect(solver.findClaim(pod, all, 3)).toBe(0);
      expect(solver.findClaim(pod, all, 0)).toBe(-1);
    });

    it("uses the cursor claim's current pod count", () => {
      const solver = roomy();
      for (let i = 0; i < 3; i++) solver.openClaim(req(0, 0), all);
      solver.commit(1, pod, all);
      solver.commit(1, pod, all); // keys: 0:(0,0) 2:(0,2) 1:(2,1)
      expect(solver.findClaim(pod, all, 1)).toBe(-1);
      solver.commit(0, pod, all);
      solver.commit(0, pod, all);
      solver.commit(0, pod, all); // 0:(3,0) now sorts after 1:(2,1)
      expect(solver.findClaim(pod, all, 1)).toBe(0);
    });

    it('skips claims whose summed requests leave no room on any of their rows', () => {
      const solver = loaded(
        kind,
        catalogOf(
          ['cpu', 'pods'],
          [
            [1000, 10],
            [4000, 10],
          ],
        ),
      );
      solver.openClaim(req(900, 0), rows(2, 0)); // only the small row, 100m left
      solver.openClaim(req(900, 0), rows(2, 0, 1)); // can still grow to the big row
      expect(solver.findClaim(req(200, 1), fullMask(2), -1)).toBe(1);
      expect(solver.findClaim(req(100, 1), fullMask(2), -1)).toBe(0);
    });

    it('requires the fitting row to be allowed by both the claim and the pod', () => {
      const solver = loaded(kind, catalogOf(['cpu'], [[1000], [1000], [1000]]));
      solver.openClaim(req(0), rows(3, 0, 1));
      solver.openClaim(req(0), rows(3, 2));
      expect(solver.findClaim(req(10), rows(3, 2), -1)).toBe(1);
      expect(solver.findClaim(req(10), rows(3, 1), -1)).toBe(0);
      expect(solver.findClaim(req(10), rows(3), -1)).toBe(-1);
    });

    it('needs a single row to cover every resource, not the best row per resource', () => {
      // row 0 is cpu-heavy, row 1 memory-heavy: each resource fits somewhere, never together
      const solver = loaded(
        kind,
        catalogOf(
          ['cpu', 'memory'],
          [
            [8000, GiB],
            [1000, 8 * GiB],
          ],
        ),
      );
      solver.openClaim(req(0, 0), fullMask(2));
      expect(solver.findClaim(req(4000, 4 * GiB), fullMask(2), -1)).toBe(-1);
      expect(solver.findClaim(req(4000, GiB), fullMask(2), -1)).toBe(0);
    });

    it('never returns a closed claim but accepts it as a cursor', () => {
      const solver = roomy();
      for (let i = 0; i < 3; i++) solver.openClaim(req(0, 0), all);
      solver.close(1);
      solver.close(1); // closing twice is harmless
      expect(solver.findClaim(pod, all, 0)).toBe(2);
      expect(solver.findClaim(pod, all, 1)).toBe(2);
      solver.close(0);
      solver.close(2);
      expect(solver.findClaim(pod, all, -1)).toBe(-1);
    });

    it('keeps a claim findable when another 32-claim word of its bucket empties', () => {
      const solver = roomy();
      for (let i = 0; i < 64; i++) solver.openClaim(req(0, 0), all);
      solver.commit(0, pod, all); // bucket 1: {0}
      solver.commit(32, pod, all); // bucket 1: {0, 32}
      solver.commit(32, pod, all); // bucket 1: {0}, bucket 2: {32}
      expect(solver.findClaim(pod, all, 63)).toBe(0);
      expect(solver.findClaim(pod, all, 0)).toBe(32);
    });

    it('returns -1 when there are no claims', () => {
      expect(roomy().findClaim(pod, all, -1)).toBe(-1);
    });

    it('finds a claim that only fits after an earlier miss tightened its bucket bound', () => {
      const solver = loaded(kind, catalogOf(['cpu'], [[1000], [500]]));
      solver.openClaim(req(0), rows(2, 0)); // 1000 free
      solver.openClaim(req(0), rows(2, 1)); // 500 free
      solver.commit(0, req(900), rows(2, 0)); // now 100 free, bucket 1
      solver.commit(1, req(100), rows(2, 1)); // now 400 free, bucket 1
      expect(solver.findClaim(req(450), fullMask(2), -1)).toBe(-1);
      expect(solver.findClaim(req(400), fullMask(2), -1)).toBe(1);
      expect(solver.findClaim(req(100), fullMask(2), -1)).toBe(0);
    });
  });

  describe('claimFit', () => {
    it('keeps the claim rows the pod allows that still cover the summed requests', () => {
      const solver = loaded(kind, threeSizes());
      solver.openClaim(req(1500, 2 * GiB, 1), fullMask(3));
      const out = new Uint32Array(1);
      expect(solver.claimFit(0, req(1000, GiB, 1), fullMask(3), out)).toBe(2);
      expect(rowsOfMask(out)).toEqual([1, 2]);
      expect(solver.claimFit(0, req(1000, GiB, 1), rows(3, 0, 1), out)).toBe(1);
      expect(rowsOfMask(out)).toEqual([1]);
    });

    it('changes nothing on the claim', () => {
      const solver = loaded(kind, threeSizes());
      solver.openClaim(req(1500, 2 * GiB, 1), fullMask(3));
      solver.claimFit(0, req(1000, GiB, 1), fullMask(3), new Uint32Array(1));
      expect(Array.from(solver.claimRequests(0))).toEqual([1500, 2 * GiB, 1]);
      expect(rowsOfMask(solver.claimMask(0))).toEqual([0, 1, 2]);
      expect(solver.claimPods(0)).toBe(0);
    });
  });

  describe('commit', () => {
    it('adds the requests and a pod and replaces the option mask', () => {
      const solver = loaded(kind, threeSizes());
      solver.openClaim(req(1500, 2 * GiB, 1), fullMask(3));
      solver.commit(0, req(1000, GiB, 1), rows(3, 1, 2));
      expect(Array.from(solver.claimRequests(0))).toEqual([2500, 3 * GiB, 2]);
      expect(rowsOfMask(solver.claimMask(0))).toEqual([1, 2]);
      expect(solver.claimPods(0)).toBe(1);
    });

    it('narrows what the claim can take next', () => {
      const solver = loaded(kind, threeSizes());
      solver.openClaim(req(0, 0, 0), fullMask(3));
      solver.commit(0, req(1000, GiB, 1), rows(3, 1)); // scheduler narrowed to the medium row
      expect(solver.findClaim(req(3000, GiB, 1), fullMask(3), -1)).toBe(0);
      expect(solver.findClaim(req(3001, GiB, 1), fullMask(3), -1)).toBe(-1);
    });

    it('updates a closed claim without reopening it', () => {
      const solver = loaded(kind, threeSizes());
      solver.openClaim(req(0, 0, 0), fullMask(3));
      solver.close(0);
      solver.commit(0, req(1, 1, 1), fullMask(3));
      expect(solver.claimPods(0)).toBe(1);
      expect(solver.findClaim(req(0, 0, 0), fullMask(3), -1)).toBe(-1);
    });
  });

  describe('claimFitCommit', () => {
    it('commits the pod with exactly the rows that still fit and returns their count', () => {
      const solver = loaded(kind, threeSizes());
      solver.openClaim(req(1500, 2 * GiB, 1), fullMask(3));
      const out = new Uint32Array(1);
      expect(solver.claimFitCommit(0, req(1000, GiB, 1), rows(3, 0, 1, 2), out)).toBe(2);
      expect(rowsOfMask(out)).toEqual([1, 2]);
      expect(Array.from(solver.claimRequests(0))).toEqual([2500, 3 * GiB, 2]);
      expect(rowsOfMask(solver.claimMask(0))).toEqual([1, 2]);
      expect(solver.claimPods(0)).toBe(1);
    });

    it('leaves the claim unchanged when no row fits', () => {
      const solver = loaded(kind, threeSizes());
      solver.openClaim(req(1500, 2 * GiB, 1), fullMask(3));
      const out = new Uint32Array(1);
      expect(solver.claimFitCommit(0, req(1000, GiB, 1), rows(3, 0), out)).toBe(0);
      expect(rowsOfMask(out)).toEqual([]);
      expect(Array.from(solver.claimRequests(0))).toEqual([1500, 2 * GiB, 1]);
      expect(rowsOfMask(solver.claimMask(0))).toEqual([0, 1, 2]);
      expect(solver.claimPods(0)).toBe(0);
    });
  });

  describe('openWithPod', () => {
    it('opens a claim holding the pod on the rows that fit it', () => {
      const solver = loaded(kind, threeSizes());
      const out = new Uint32Array(1);
      expect(solver.openWithPod(req(3000, 8 * GiB, 1), fullMask(3), out)).toBe(0);
      expect(rowsOfMask(out)).toEqual([1, 2]);
      expect(Array.from(solver.claimRequests(0))).toEqual([3000, 8 * GiB, 1]);
      expect(rowsOfMask(solver.claimMask(0))).toEqual([1, 2]);
      expect(solver.claimPods(0)).toBe(1);
      // it is found like any claim with one pod
      expect(solver.findClaim(req(1, 1, 1), fullMask(3), -1)).toBe(0);
    });

    it('opens nothing when no row fits', () => {
      const solver = loaded(kind, threeSizes());
      const out = new Uint32Array(1);
      expect(solver.openWithPod(req(3000, 8 * GiB, 1), rows(3, 0), out)).toBe(-1);
      expect(rowsOfMask(out)).toEqual([]);
      expect(solver.claimCount).toBe(0);
    });
  });

  describe('argument checks', () => {
    it('rejects requests of the wrong length or with negative or fractional values', () => {
      const solver = loaded(kind, threeSizes());
      const out = new Uint32Array(1);
      expect(() => solver.fitTypes(req(1, 2), fullMask(3), out)).toThrow(
        /requests must be a Float64Array of 3 resources/,
      );
      expect(() => solver.fitTypes(req(1, -2, 0), fullMask(3), out)).toThrow(
        /requests\[1\] must be a non-negative integer, got -2/,
      );
      expect(() => solver.openClaim(req(0.5, 0, 0), fullMask(3))).toThrow(RangeError);
      expect(() => solver.findClaim(req(NaN, 0, 0), fullMask(3), -1)).toThrow(RangeError);
    });

    it('rejects masks of the wrong length', () => {
      const solver = loaded(kind, threeSizes());
      expect(() => solver.openClaim(req(0, 0, 0), new Uint32Array(2))).toThrow(
        /mask must be a Uint32Array of 1 words/,
      );
      expect(() => solver.fitTypes(req(0, 0, 0), fullMask(3), new Uint32Array(0))).toThrow(
        /out must be a Uint32Array/,
      );
    });

    it('rejects unknown claim ids and cursors, changing nothing', () => {
      const solver = loaded(kind, threeSizes());
      solver.openClaim(req(0, 0, 0), fullMask(3));
      expect(() => solver.commit(1, req(1, 1, 1), fullMask(3))).toThrow(
        /claim must be a claim id from 0 to 0, got 1/,
      );
      expect(() => solver.findClaim(req(0, 0, 0), fullMask(3), -2)).toThrow(/after/);
      expect(() => solver.findClaim(req(0, 0, 0), fullMask(3), 1)).toThrow(RangeError);
      expect(() => solver.close(0.5)).toThrow(RangeError);
      expect(() => solver.claimPods(-1)).toThrow(RangeError);
      expect(solver.claimPods(0)).toBe(0);
    });
  });
});

describe('createSolver', () => {
  it('rejects an unknown kind', () => {
    expect(() => createSolver('gpu' as never)).toThrow(/kind must be "wasm" or "ts"/);
  });
});

describe('fit index options', () => {
  it('rejects a threshold count outside 1 to 64, naming the option', () => {
    for (const create of [createTsSolver, createWasmSolverSync]) {
      expect(() => create({ maxThresholds: 0 })).toThrow(
        /maxThresholds must be an integer from 1 to 64, got 0/,
      );
      expect(() => create({ maxThresholds: 65 })).toThrow(RangeError);
      expect(() => create({ maxThresholds: 2.5 })).toThrow(RangeError);
    }
  });

  it('gives the same fits with one threshold per resource as with the full index', () => {
    const catalog = {
      resourceNames: ['cpu', 'memory'],
      typeCount: 5,
      allocatable: Float64Array.of(1000, 4, 2000, 8, 2000, 2, 4000, 16, 8000, 4),
    };
    for (const create of [createTsSolver, createWasmSolverSync]) {
      const coarse = create({ maxThresholds: 1 });
      const full = create();
      coarse.load(catalog);
      full.load(catalog);
      for (const need of [
        [0, 0],
        [1500, 3],
        [2000, 4],
        [2000, 9],
        [8000, 4],
        [8001, 0],
      ]) {
        const [a, b] = [new Uint32Array(1), new Uint32Array(1)];
        const requests = Float64Array.from(need);
        expect(coarse.fitTypes(requests, fullMask(5), a)).toBe(
          full.fitTypes(requests, fullMask(5), b),
        );
        expect(rowsOfMask(a)).toEqual(rowsOfMask(b));
      }
      // rows 1 (2000, 8) and 3 (4000, 16) are the only ones covering 2000 cpu and 5 memory
      const out = new Uint32Array(1);
      coarse.fitTypes(Float64Array.of(2000, 5), fullMask(5), out);
      expect(rowsOfMask(out)).toEqual([1, 3]);
    }
  });
});

describe('orderRows', () => {
  for (const kind of ['wasm', 'ts'] as const) {
    it(`${kind}: sorts 40 rows by lanes left to right, equal keys in row order`, () => {
      const solver = createSolver(kind);
      // lane 0 = row % 3, lane 1 = -(row % 2): odd rows with lane 0 = 0 (3, 9, 15, ...) come first
      const keys = new Float64Array(80);
      for (let r = 0; r < 40; r++) {
        keys[r * 2] = r % 3;
        keys[r * 2 + 1] = -(r % 2);
      }
      const order = new Int32Array(40);
      solver.orderRows(keys, 2, order);
      const want = Array.from({ length: 40 }, (_, r) => r).sort(
        (a, b) => (a % 3) - (b % 3) || (b % 2) - (a % 2) || a - b,
      );
      expect(Array.from(order)).toEqual(want);
      expect(Array.from(order.subarray(0, 3))).toEqual([3, 9, 15]);
    });

    it(`${kind}: rejects a width that does not divide the keys, a short order and NaN keys`, () => {
      const solver = createSolver(kind);
      expect(() => solver.orderRows(new Float64Array(5), 2, new Int32Array(2))).toThrow(
        /width must be a positive integer dividing keys.length \(5\), got 2/,
      );
      expect(() => solver.orderRows(new Float64Array(4), 0, new Int32Array(0))).toThrow(RangeError);
      expect(() => solver.orderRows(new Float64Array(4), 2, new Int32Array(1))).toThrow(
        /order must be an Int32Array of 2 rows/,
      );
      expect(() => solver.orderRows(Float64Array.of(1, NaN), 1, new Int32Array(2))).toThrow(
        /keys\[1\] is NaN/,
      );
    });
  }
});

describe('orderRows of a large key block in the WASM solver', () => {
  // Rows of 5 lanes with many equal leading lanes, as the scheduler's queue keys have.
  const rowsOfKeys = (n: number): Float64Array => {
    const keys = new Float64Array(n * 5);
    for (let r = 0; r < n; r++) {
      keys[r * 5] = -(r % 7);
      keys[r * 5 + 1] = -(r % 3);
      keys[r * 5 + 2] = 0;
      keys[r * 5 + 3] = (r * 2654435761) % 4294967296;
      keys[r * 5 + 4] = 36;
    }
    return keys;
  };
  const above = Math.ceil(CORE_SORT_MAX_KEY_BYTES / 40) + 1; // rows past the limit

  it('sorts a block over the limit outside linear memory, in the order the TS twin gives', () => {
    const wasm = createWasmSolverSync();
    wasm.load(threeSizes());
    const keys = rowsOfKeys(above);
    expect(keys.byteLength).toBeGreaterThan(CORE_SORT_MAX_KEY_BYTES);
    const before = wasm.memoryBytes;
    const order = new Int32Array(above);
    wasm.orderRows(keys, 5, order);
    expect(wasm.memoryBytes).toBe(before);
    const want = new Int32Array(above);
    createTsSolver().orderRows(keys, 5, want);
    expect(Array.from(order)).toEqual(Array.from(want));
  });

  it('copies the block into the core when the limit allows it, growing its memory', () => {
    const wasm = createWasmSolverSync({ coreSortMaxKeyBytes: Infinity });
    const keys = rowsOfKeys(above);
    const before = wasm.memoryBytes;
    const order = new Int32Array(above);
    wasm.orderRows(keys, 5, order);
    expect(wasm.memoryBytes).toBeGreaterThan(before + keys.byteLength);
    const want = new Int32Array(above);
    createTsSolver().orderRows(keys, 5, want);
    expect(Array.from(order)).toEqual(Array.from(want));
  });

  it('rejects a negative or NaN limit', () => {
    expect(() => createWasmSolverSync({ coreSortMaxKeyBytes: -1 })).toThrow(
      /coreSortMaxKeyBytes must be a number >= 0, got -1/,
    );
    expect(() => createWasmSolverSync({ coreSortMaxKeyBytes: NaN })).toThrow(RangeError);
  });
});
