/** Booleans as Go's `strconv.ParseBool` reads them (upstream parses env vars and flags this way). */

const True = new Set(['1', 't', 'T', 'TRUE', 'true', 'True']);
const False = new Set(['0', 'f', 'F', 'FALSE', 'false', 'False']);

/** `true`/`false` from 1, t, T, TRUE, true, True / 0, f, F, FALSE, false, False; RangeError otherwise. */
export function parseGoBool(text: string, what = 'value'): boolean {
  if (True.has(text)) return true;
  if (False.has(text)) return false;
  throw new RangeError(`${what}: "${text}" is not a boolean (use true or false)`);
}
