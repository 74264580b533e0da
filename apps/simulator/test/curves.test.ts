/**
 * Replica curves through a day.
 */
import { describe, expect, it } from 'vitest';
import { curveReplicas, curveValue } from '../src/engine/curves.js';
import type { Curve } from '../src/index.js';

const H = 3600;
const day = (shape: Curve['shape'], points: [number, number][]): Curve => ({
  shape,
  periodSeconds: 24 * H,
  noise: 0,
  points: points.map(([at, value]) => ({ atSeconds: at * H, value })),
});

describe('a curve', () => {
  it('through a trough and a peak is a sine wave: the points, and halfway between them the middle', () => {
    const c = day('sine', [
      [4, 1],
      [16, 9],
    ]);
    expect(curveValue(c, 4 * H)).toBe(1);
    expect(curveValue(c, 16 * H)).toBe(9);
    expect(curveValue(c, 10 * H)).toBeCloseTo(5, 9);
    expect(curveValue(c, 22 * H)).toBeCloseTo(5, 9);
    expect(curveValue(c, 28 * H)).toBe(1);
  });

  it('of steps holds each value until the next point, the last one past midnight', () => {
    const c = day('step', [
      [8, 4],
      [20, 1],
    ]);
    expect(curveValue(c, 7 * H)).toBe(1);
    expect(curveValue(c, 8 * H)).toBe(4);
    expect(curveValue(c, 19 * H)).toBe(4);
    expect(curveValue(c, 23 * H)).toBe(1);
  });

  it('that is linear interpolates between points', () => {
    const c = day('linear', [
      [0, 0],
      [12, 12],
    ]);
    expect(curveValue(c, 6 * H)).toBe(6);
    expect(curveValue(c, 18 * H)).toBe(6);
  });

  it('with one point is constant', () => {
    expect(curveValue(day('sine', [[3, 2]]), 17 * H)).toBe(2);
  });
});

describe('curve replicas', () => {
  it('scale the manifest replicas by the value and the noise draw, within the bounds', () => {
    expect(curveReplicas(3, 2, 0, 0, { min: 0, max: undefined })).toBe(6);
    expect(curveReplicas(3, 2, 0.1, 1, { min: 0, max: undefined })).toBe(7);
    expect(curveReplicas(3, 2, 0.1, -20, { min: 1, max: undefined })).toBe(1);
    expect(curveReplicas(3, 10, 0, 0, { min: 1, max: 20 })).toBe(20);
  });
});
