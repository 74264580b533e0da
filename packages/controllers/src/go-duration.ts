/**
 * Go's `time.ParseDuration`, which upstream uses for the pod `karpenter.sh/do-not-disrupt`
 * annotation: an optional sign, then one or more decimal numbers (with optional fraction) each
 * followed by a unit `ns`, `us` (or `µs`, `μs`), `ms`, `s`, `m`, `h` — `300ms`, `1.5h`,
 * `2h45m`, `-1.5h`. `0` alone is valid. The CRD duration fields are stricter (see
 * `@karpenter-ts/api` `parseDuration`).
 */

const UnitSeconds: Readonly<Record<string, number>> = {
  ns: 1e-9,
  us: 1e-6,
  µs: 1e-6,
  μs: 1e-6,
  ms: 1e-3,
  s: 1,
  m: 60,
  h: 3600,
};

const Part = /([0-9]*(?:\.[0-9]*)?)(ns|us|µs|μs|ms|s|m|h)/y;

/** Seconds (may be fractional or negative), or undefined when Go would refuse the text. */
export function parseGoDuration(text: string): number | undefined {
  let s = text;
  let sign = 1;
  if (s.startsWith('-') || s.startsWith('+')) {
    sign = s.startsWith('-') ? -1 : 1;
    s = s.slice(1);
  }
  if (s === '0') return 0;
  if (s === '') return undefined;
  let total = 0;
  Part.lastIndex = 0;
  while (Part.lastIndex < s.length) {
    const at = Part.lastIndex;
    const m = Part.exec(s);
    if (m === null || m.index !== at) return undefined;
    const number = m[1] ?? '';
    if (number === '' || number === '.') return undefined;
    total += Number(number) * (UnitSeconds[m[2] ?? ''] ?? 0);
  }
  return sign * total;
}
