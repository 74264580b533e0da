/**
 * Where the sim cloud keeps its machines so they outlive the process that launched them, as a
 * real cloud's instances outlive a crashed or restarted controller. Without a store the sim
 * cloud is memory only (the simulator and unit tests want that).
 *
 * {@link FileMachineStore} is the durable model the controller uses: one JSON file in a given
 * directory, replaced atomically (written to a temporary file in the same directory, flushed,
 * then renamed over the old one), so a process killed at any point leaves either the old or the
 * new list, never half of one. Every replica pointing at the same directory sees the same
 * machines, as every replica of a real controller sees the same cloud account. One writer at a
 * time is assumed (the leader): each change is a read-modify-write done without yielding to the
 * event loop, but two processes writing at the same instant could lose one change, which a real
 * cloud's API would have serialised.
 */
import {
  closeSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import type { NodeClaim } from '@karpenter-ts/api';
import type { SimInstance } from '../sim-provider.js';

/** One machine as stored: the cloud's record and the NodeClaim view `get`/`list` return. */
export interface SimMachineRecord {
  readonly instance: SimInstance;
  readonly nodeClaim: NodeClaim;
}

/** Durable storage of the sim cloud's machines (see the module comment). */
export interface SimMachineStore {
  /**
   * The stored machines, or `undefined` when nothing changed since this store object last
   * loaded or saved (so callers keep their copy). Raises Error naming the file for an
   * unreadable or malformed store.
   */
  load(): readonly SimMachineRecord[] | undefined;
  /** Replaces the stored machines atomically. Raises the file system's error when it cannot. */
  save(machines: readonly SimMachineRecord[]): void;
}

/** Name of the state file inside the directory. */
export const SimStateFileName = 'sim-cloud.json';

const FormatVersion = 1;

interface StateFile {
  readonly version: number;
  readonly machines: SimMachineRecord[];
}

/** The machines in `<directory>/sim-cloud.json` (see the module comment). */
export class FileMachineStore implements SimMachineStore {
  /** Absolute or relative path of the state file. */
  readonly path: string;
  readonly #directory: string;
  /** Identity (inode, size, mtime) of the file as last loaded or saved; '' = never. */
  #seen = '';

  /** Creates the directory if missing. Raises the file system's error when it cannot. */
  constructor(directory: string) {
    if (directory === '') throw new TypeError('sim state directory must not be empty');
    mkdirSync(directory, { recursive: true });
    this.#directory = directory;
    this.path = join(directory, SimStateFileName);
  }

  load(): readonly SimMachineRecord[] | undefined {
    const identity = this.#identity();
    if (identity === this.#seen) return undefined;
    if (identity === 'missing') {
      this.#seen = identity;
      return [];
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(readFileSync(this.path, 'utf8'));
    } catch (cause) {
      throw new Error(`sim cloud state ${this.path}: ${(cause as Error).message}`, { cause });
    }
    const state = parsed as Partial<StateFile> | null;
    if (state?.version !== FormatVersion || !Array.isArray(state.machines)) {
      throw new Error(
        `sim cloud state ${this.path}: expected {"version": ${FormatVersion}, "machines": [...]}`,
      );
    }
    this.#seen = identity;
    return state.machines;
  }

  save(machines: readonly SimMachineRecord[]): void {
    const body: StateFile = { version: FormatVersion, machines: [...machines] };
    const tmp = join(
      this.#directory,
      `.${SimStateFileName}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`,
    );
    try {
      writeFileSync(tmp, `${JSON.stringify(body)}\n`);
      const fd = openSync(tmp, 'r');
      try {
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      renameSync(tmp, this.path);
    } catch (err) {
      rmSync(tmp, { force: true });
      throw err;
    }
    this.#seen = this.#identity();
  }

  #identity(): string {
    try {
      const s = statSync(this.path, { bigint: true });
      return `${s.ino}:${s.size}:${s.mtimeNs}`;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 'missing';
      throw err;
    }
  }
}
