/**
 * A budget schedule the API server accepts but upstream's cron parser refuses fails closed (the
 * budget allows 0 disruptions): validate accepts the NodePool and warns on the schedule.
 */
import { describe, expect, it } from 'vitest';
import { cli } from './support/cli.js';
import { writeManifests } from './support/manifests.js';

const pool = (schedule: string) => `apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: p}
spec:
  disruption:
    budgets: [{nodes: "10%", schedule: "${schedule}", duration: 1h}]
  template:
    spec:
      nodeClassRef: {group: karpenter.azure.com, kind: AKSNodeClass, name: default}
      requirements: []
`;

describe('budget schedules upstream cannot parse', () => {
  it('warns that "61 * * * *" allows 0 disruptions, and exits 0', async () => {
    const file = await writeManifests(pool('61 * * * *'));
    const { code, stdout } = await cli('validate', file);
    expect(stdout).toBe(
      `${file}:1 spec.disruption.budgets[0].schedule: warning: upstream's cron parser refuses this schedule (minute "61": not a value in 0-59), so the budget allows 0 disruptions\n` +
        '✓ 1 object valid (1 NodePool) in 1 file; 1 warning\n',
    );
    expect(code).toBe(0);
  });

  it('says nothing about a schedule upstream reads ("0 9 * * 1-5", "@daily")', async () => {
    for (const schedule of ['0 9 * * 1-5', '@daily']) {
      const { stdout } = await cli('validate', await writeManifests(pool(schedule)));
      expect(stdout).toBe('✓ 1 object valid (1 NodePool) in 1 file\n');
    }
  });
});
