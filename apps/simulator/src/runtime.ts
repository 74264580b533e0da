/**
 * State shared by the commands of one `karpenter-ts-sim` run.
 */
import type { Io } from '@karpenter-ts/cli';

/** Where a command writes, and the exit code the run ends with. */
export interface Runtime {
  readonly io: Io;
  exitCode: number;
}
