/**
 * CPU time of the calling thread, for the fuzz check's time bound: on a shared machine a
 * command's wall time grows with everyone else's load, its CPU time does not. Linux exposes
 * it per thread in /proc/thread-self/stat (read synchronously, so on the calling thread, the
 * worker thread itself when the fuzz script runs it there).
 */
import { readFileSync } from 'node:fs';

/** Clock ticks a second of /proc's utime and stime (USER_HZ, 100 on Linux). */
const TICKS_PER_SECOND = 100;

/**
 * User plus system CPU time of the calling thread so far, in ms (10 ms steps), or undefined
 * where /proc/thread-self is not available (not Linux).
 */
export function threadCpuMs(): number | undefined {
  let stat: string;
  try {
    stat = readFileSync('/proc/thread-self/stat', 'utf8');
  } catch {
    return undefined;
  }
  // Fields after the command name, which is in parentheses and may hold spaces: state is
  // field 3, utime field 14, stime field 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  return Number.isFinite(ticks) ? (ticks * 1000) / TICKS_PER_SECOND : undefined;
}
