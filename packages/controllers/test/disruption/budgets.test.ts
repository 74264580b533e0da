/**
 * Disruption budgets: per NodePool and reason, the minimum
 * of the active budgets that apply, percentages rounded up, cron windows in UTC, malformed
 * schedules failing closed, nodes already disrupting subtracted, only initialized nodes counted.
 */
import type { Budget, DisruptionReason } from '@karpenter-ts/api';
import { afterEach, describe, expect, it } from 'vitest';
import {
  allowedDisruptions,
  budgetActive,
  BudgetError,
  budgetNodes,
  buildBudgetMapping,
  ManualClock,
  Unlimited,
} from '../../src/index.js';
import { addNode, disruptionPool, unitEnv } from './support.js';

function allowed(
  budgets: Budget[] | undefined,
  nodeCount: number,
  o: { reason?: DisruptionReason; at?: number } = {},
): number {
  const pool = disruptionPool();
  if (budgets === undefined) delete pool.spec.disruption?.budgets;
  else pool.spec.disruption = { budgets };
  const now = o.at ?? new ManualClock().now();
  return allowedDisruptions(pool, o.reason ?? 'Underutilized', nodeCount, now).allowed;
}

/** 2025-01-06 (a Monday) at hh:mm:ss UTC. */
function monday(hh: number, mm = 0, ss = 0): number {
  return Date.UTC(2025, 0, 6, hh, mm, ss);
}

describe('budget arithmetic', () => {
  it('allows ceil(10% of 15) = 2 disruptions (a percentage is rounded up)', () => {
    expect(allowed([{ nodes: '10%' }], 15)).toBe(2);
  });

  it('allows ceil(10% of 1) = 1 disruption, so a small pool is not frozen', () => {
    expect(allowed([{ nodes: '10%' }], 1)).toBe(1);
  });

  it('defaults to the CRD budget of 10% when a pool sets none: 2 of 15', () => {
    expect(allowed(undefined, 15)).toBe(2);
  });

  it('takes an integer as is, whatever the node count: 3 of 100 and 3 of 2', () => {
    expect(allowed([{ nodes: '3' }], 100)).toBe(3);
    expect(allowed([{ nodes: '3' }], 2)).toBe(3);
  });

  it('allows 0 for nodes "0" and for "0%"', () => {
    expect(allowed([{ nodes: '0' }], 10)).toBe(0);
    expect(allowed([{ nodes: '0%' }], 10)).toBe(0);
  });

  it('allows every node for 100%', () => {
    expect(allowed([{ nodes: '100%' }], 7)).toBe(7);
  });

  it('takes the minimum of the active budgets: min(5, ceil(20% of 10) = 2) = 2', () => {
    expect(allowed([{ nodes: '5' }, { nodes: '20%' }], 10)).toBe(2);
    expect(allowed([{ nodes: '20%' }, { nodes: '1' }], 10)).toBe(1);
  });
});

describe('budget reasons', () => {
  const budgets: Budget[] = [{ nodes: '0', reasons: ['Drifted'] }, { nodes: '50%' }];

  it('applies a budget listing a reason to that reason: Drifted gets 0', () => {
    expect(allowed(budgets, 10, { reason: 'Drifted' })).toBe(0);
  });

  it('does not apply it to other reasons: Empty and Underutilized get 50% of 10 = 5', () => {
    expect(allowed(budgets, 10, { reason: 'Empty' })).toBe(5);
    expect(allowed(budgets, 10, { reason: 'Underutilized' })).toBe(5);
  });

  it('leaves a reason no budget applies to unlimited', () => {
    expect(allowed([{ nodes: '1', reasons: ['Empty'] }], 10, { reason: 'Drifted' })).toBe(
      Unlimited,
    );
  });
});

describe('budget schedules (cron, evaluated in UTC)', () => {
  const workday: Budget = { nodes: '0', schedule: '0 9 * * *', duration: '8h' };

  it('is active from the schedule tick: at 09:00:00 UTC the window "0 9 * * *" for 8h has begun', () => {
    expect(budgetActive(workday, monday(9))).toBe(true);
    expect(allowed([workday], 10, { at: monday(9) })).toBe(0);
  });

  it('is active during the window: 16:59:59 UTC', () => {
    expect(budgetActive(workday, monday(16, 59, 59))).toBe(true);
  });

  it('is inactive once the window has just ended: at 17:00:00 UTC, and the pool falls back to its other budgets', () => {
    expect(budgetActive(workday, monday(17))).toBe(false);
    expect(allowed([workday, { nodes: '3' }], 10, { at: monday(17) })).toBe(3);
  });

  it('is inactive before the window: 08:59:59 UTC', () => {
    expect(budgetActive(workday, monday(8, 59, 59))).toBe(false);
  });

  it('leaves a reason unlimited while its only budget is outside its window', () => {
    expect(allowed([workday], 10, { at: monday(8) })).toBe(Unlimited);
  });

  it('honours day-of-week fields: "0 9 * * 1-5" is inactive on a Sunday', () => {
    const weekdays: Budget = { nodes: '0', schedule: '0 9 * * 1-5', duration: '8h' };
    expect(budgetActive(weekdays, monday(10))).toBe(true);
    expect(budgetActive(weekdays, Date.UTC(2025, 0, 5, 10))).toBe(false);
  });

  it('reads day-of-month and day-of-week as either, as cron does: "0 0 1 * 1" fires on Monday the 6th', () => {
    const firstOrMonday: Budget = { nodes: '0', schedule: '0 0 1 * 1', duration: '24h' };
    expect(budgetActive(firstOrMonday, monday(10))).toBe(true);
  });

  it('accepts day names: "0 9 * * MON-FRI"', () => {
    const weekdays: Budget = { nodes: '0', schedule: '0 9 * * MON-FRI', duration: '8h' };
    expect(budgetActive(weekdays, monday(10))).toBe(true);
    expect(budgetActive(weekdays, Date.UTC(2025, 0, 5, 10))).toBe(false);
  });

  it('accepts the @daily, @midnight and @hourly macros', () => {
    const daily: Budget = { nodes: '0', schedule: '@daily', duration: '1h' };
    const midnight: Budget = { nodes: '0', schedule: '@midnight', duration: '1h' };
    const hourly: Budget = { nodes: '0', schedule: '@hourly', duration: '10m' };
    expect(budgetActive(daily, monday(0, 30))).toBe(true);
    expect(budgetActive(daily, monday(1))).toBe(false);
    expect(budgetActive(midnight, monday(0, 59))).toBe(true);
    expect(budgetActive(hourly, monday(5, 9, 59))).toBe(true);
    expect(budgetActive(hourly, monday(5, 10))).toBe(false);
  });

  it('accepts @weekly (Sunday 00:00 UTC) and @monthly', () => {
    const weekly: Budget = { nodes: '0', schedule: '@weekly', duration: '24h' };
    const monthly: Budget = { nodes: '0', schedule: '@monthly', duration: '2h' };
    expect(budgetActive(weekly, Date.UTC(2025, 0, 5, 23))).toBe(true);
    expect(budgetActive(weekly, monday(1))).toBe(false);
    expect(budgetActive(monthly, Date.UTC(2025, 1, 1, 1))).toBe(true);
    expect(budgetActive(monthly, Date.UTC(2025, 1, 2, 1))).toBe(false);
  });

  describe('in a process whose local time zone is not UTC', () => {
    const tz = process.env.TZ;
    afterEach(() => {
      if (tz === undefined) delete process.env.TZ;
      else process.env.TZ = tz;
    });

    it('still reads "0 9 * * *" as 09:00 UTC, not 09:00 local time', () => {
      process.env.TZ = 'America/New_York';
      expect(new Date(monday(9)).getHours()).toBe(4); // the zone change took effect
      expect(budgetActive(workday, monday(9))).toBe(true);
      expect(budgetActive(workday, monday(17))).toBe(false);
      expect(budgetActive(workday, monday(14, 30))).toBe(true);
    });
  });
});

describe('malformed budgets fail closed', () => {
  it('allows 0 when a schedule cannot be parsed, even beside a budget that allows more', () => {
    const pool = disruptionPool({
      budgets: [{ nodes: '10', schedule: 'not a cron', duration: '1h' }, { nodes: '100%' }],
    });
    const verdict = allowedDisruptions(pool, 'Empty', 10, monday(9));
    expect(verdict.allowed).toBe(0);
    expect(verdict.error).toMatch(/not a cron/);
  });

  it('allows 0 for a schedule with a field out of range ("0 25 * * *")', () => {
    expect(allowed([{ nodes: '10', schedule: '0 25 * * *', duration: '1h' }], 10)).toBe(0);
  });

  it('allows 0 for a 6-field (seconds) cron, which upstream does not accept', () => {
    expect(allowed([{ nodes: '10', schedule: '0 0 9 * * *', duration: '1h' }], 10)).toBe(0);
  });

  it('fails closed on cron syntax upstream (robfig/cron standard parser) refuses: L, #, and 7 for Sunday', () => {
    for (const schedule of ['0 9 L * *', '0 9 * * 1#2', '0 9 * * 5L', '0 9 * * 7']) {
      expect(allowed([{ nodes: '10', schedule, duration: '1h' }], 10, { at: monday(9) })).toBe(0);
    }
  });

  it('does not let a malformed budget for another reason block this one', () => {
    const budgets: Budget[] = [
      { nodes: '10', schedule: 'bad', duration: '1h', reasons: ['Drifted'] },
      { nodes: '2' },
    ];
    expect(allowed(budgets, 10, { reason: 'Empty' })).toBe(2);
    expect(allowed(budgets, 10, { reason: 'Drifted' })).toBe(0);
  });
});

describe('the per-pool budget mapping', () => {
  it('subtracts nodes already disrupting (NotReady, marked for deletion, deleting): 3 allowed − 3 = 0 left', async () => {
    const env = await unitEnv({ pools: [disruptionPool({ budgets: [{ nodes: '3' }] })] });
    for (let i = 0; i < 7; i++) await addNode(env, { name: `n-${i}` });
    await addNode(env, { name: 'not-ready', ready: false });
    await addNode(env, { name: 'marked' });
    await addNode(env, { name: 'deleting' });
    env.cluster.markForDeletion('marked');
    await env.client.delete('NodeClaim', { name: 'deleting' });
    const mapping = buildBudgetMapping(
      env.cluster.nodes(),
      await env.client.list('NodePool'),
      'Underutilized',
      env.clock.now(),
    );
    const pool = mapping.pools.get('default');
    expect(pool?.nodes).toBe(10);
    expect(pool?.disrupting).toBe(3);
    expect(mapping.left('default')).toBe(0);
  });

  it('leaves 3 − 1 = 2 with one node disrupting', async () => {
    const env = await unitEnv({ pools: [disruptionPool({ budgets: [{ nodes: '3' }] })] });
    for (let i = 0; i < 4; i++) await addNode(env, { name: `n-${i}` });
    env.cluster.markForDeletion('n-0');
    const mapping = buildBudgetMapping(
      env.cluster.nodes(),
      await env.client.list('NodePool'),
      'Empty',
      env.clock.now(),
    );
    expect(mapping.left('default')).toBe(2);
  });

  it('floors the remainder at 0 when more nodes are disrupting than the budget allows', async () => {
    const env = await unitEnv({ pools: [disruptionPool({ budgets: [{ nodes: '1' }] })] });
    for (let i = 0; i < 3; i++) await addNode(env, { name: `n-${i}`, ready: false });
    const mapping = buildBudgetMapping(
      env.cluster.nodes(),
      await env.client.list('NodePool'),
      'Empty',
      env.clock.now(),
    );
    expect(mapping.left('default')).toBe(0);
  });

  it('counts only initialized nodes: 10 initialized and 5 not give ceil(10% of 10) = 1, not 2', async () => {
    const env = await unitEnv({ pools: [disruptionPool({ budgets: [{ nodes: '10%' }] })] });
    for (let i = 0; i < 10; i++) await addNode(env, { name: `init-${i}` });
    for (let i = 0; i < 5; i++) await addNode(env, { name: `new-${i}`, initialized: false });
    const mapping = buildBudgetMapping(
      env.cluster.nodes(),
      await env.client.list('NodePool'),
      'Empty',
      env.clock.now(),
    );
    expect(mapping.pools.get('default')?.nodes).toBe(10);
    expect(mapping.left('default')).toBe(1);
  });

  it('does not count a node whose instance is already terminating', async () => {
    const env = await unitEnv({ pools: [disruptionPool({ budgets: [{ nodes: '100%' }] })] });
    await addNode(env, { name: 'a' });
    await addNode(env, {
      name: 'b',
      conditions: [
        {
          type: 'InstanceTerminating',
          status: 'True',
          reason: 'InstanceTerminating',
          message: '',
          lastTransitionTime: new Date(env.clock.now()).toISOString(),
        },
      ],
    });
    const mapping = buildBudgetMapping(
      env.cluster.nodes(),
      await env.client.list('NodePool'),
      'Empty',
      env.clock.now(),
    );
    expect(mapping.pools.get('default')?.nodes).toBe(1);
  });

  it('keeps pools apart: each pool counts its own nodes', async () => {
    const env = await unitEnv({
      pools: [
        disruptionPool({ name: 'a', budgets: [{ nodes: '50%' }] }),
        disruptionPool({ name: 'b', budgets: [{ nodes: '50%' }] }),
      ],
    });
    for (let i = 0; i < 4; i++) await addNode(env, { name: `a-${i}`, pool: 'a' });
    for (let i = 0; i < 2; i++) await addNode(env, { name: `b-${i}`, pool: 'b' });
    const mapping = buildBudgetMapping(
      env.cluster.nodes(),
      await env.client.list('NodePool'),
      'Empty',
      env.clock.now(),
    );
    expect(mapping.left('a')).toBe(2);
    expect(mapping.left('b')).toBe(1);
  });

  it('is decremented as a method takes disruptions, and refuses once used up', async () => {
    const env = await unitEnv({ pools: [disruptionPool({ budgets: [{ nodes: '1' }] })] });
    await addNode(env, { name: 'a' });
    const mapping = buildBudgetMapping(
      env.cluster.nodes(),
      await env.client.list('NodePool'),
      'Empty',
      env.clock.now(),
    );
    expect(mapping.take('default')).toBe(true);
    expect(mapping.take('default')).toBe(false);
    expect(mapping.left('default')).toBe(0);
  });
});

describe('budget integers beyond int32', () => {
  it('fail closed: nodes "99999999999999999999" allows 0 disruptions, as upstream cannot read it', () => {
    expect(() => budgetNodes({ nodes: '99999999999999999999' }, 10)).toThrow(BudgetError);
  });
});
