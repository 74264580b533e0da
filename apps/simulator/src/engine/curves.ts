/**
 * Replica curves: a periodic profile (a day, by default) through the scenario's points.
 * `step` holds each point's value until the next point; `linear` interpolates; `sine` eases
 * between points with half a cosine, so two points (a trough and a peak) make a sine wave.
 * The profile wraps around the period (after the last point it heads to the first).
 */
import type { Curve } from '../scenario/types.js';

/** The curve's value (before noise) `seconds` after time 0. */
export function curveValue(curve: Curve, seconds: number): number {
  const { points, periodSeconds } = curve;
  const n = points.length;
  const first = points[0];
  if (first === undefined) return 1;
  if (n === 1) return first.value;
  const t = ((seconds % periodSeconds) + periodSeconds) % periodSeconds;
  let i = n - 1;
  for (let k = 0; k < n; k++) if ((points[k]?.atSeconds ?? 0) <= t) i = k;
  const a = points[i] ?? first;
  const b = points[(i + 1) % n] ?? first;
  if (curve.shape === 'step') return a.value;
  const start = a.atSeconds <= t ? a.atSeconds : a.atSeconds - periodSeconds;
  let end = b.atSeconds;
  if (end <= start) end += periodSeconds;
  const f = (t - start) / (end - start);
  const eased = curve.shape === 'sine' ? (1 - Math.cos(Math.PI * f)) / 2 : f;
  return a.value + (b.value - a.value) * eased;
}

/** Replicas for a base count at a curve value with a noise draw `z` (standard normal). */
export function curveReplicas(
  base: number,
  value: number,
  noise: number,
  z: number,
  bounds: { min: number; max: number | undefined },
): number {
  const scaled = Math.round(base * value * Math.max(0, 1 + noise * z));
  const upper = bounds.max ?? Number.POSITIVE_INFINITY;
  return Math.min(upper, Math.max(bounds.min, scaled));
}
