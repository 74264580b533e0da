import { afterEach, describe, expect, it, vi } from 'vitest';
import { daemonPod, groupDaemonsByInstanceType } from '../src/daemon-overhead.js';
import { Requirements } from '../src/requirements.js';
import { daemonSet, standardInstanceTypes } from '../src/testing/index.js';

const arm = [{ key: 'kubernetes.io/arch', operator: 'In' as const, values: ['arm64'] }];
const template = { requirements: new Requirements(), taints: [] };
const types = standardInstanceTypes().map((it) => it.requirements);

afterEach(() => {
  vi.restoreAllMocks();
});

describe('groupDaemonsByInstanceType', () => {
  it('tests daemons with the same node affinity once per instance type, not once per daemon (thousands of copied DaemonSets took minutes: fuzz seed 20261202, input 1708)', () => {
    const daemons = [
      ...Array.from({ length: 50 }, () => daemonPod(daemonSet({ requests: { cpu: '100m' } }))),
      ...Array.from({ length: 50 }, () =>
        daemonPod(daemonSet({ requests: { cpu: '200m' }, nodeRequirements: arm })),
      ),
    ];
    const intersecting = vi.spyOn(Requirements.prototype, 'isIntersecting');
    groupDaemonsByInstanceType(daemons, template, types);
    // Two kinds of daemon: at most two tests per instance type.
    expect(intersecting.mock.calls.length).toBeLessThanOrEqual(2 * types.length);
  });

  it('groups alike daemons as if each were tested: every member, in daemon order, with summed requests', () => {
    const plain = daemonPod(daemonSet({ requests: { cpu: '100m' } }));
    const onArm = daemonPod(daemonSet({ requests: { cpu: '200m' }, nodeRequirements: arm }));
    const plain2 = daemonPod(daemonSet({ requests: { cpu: '300m' } }));
    const { groupOf, groups } = groupDaemonsByInstanceType([plain, onArm, plain2], template, types);
    const names = standardInstanceTypes().map((it) => it.name);
    const armIndex = names.indexOf('arm-medium');
    expect(groups[groupOf[armIndex]!]).toMatchObject({
      daemons: [0, 1, 2],
      overhead: { cpu: 600 },
    });
    expect(groups[groupOf[names.indexOf('small')]!]).toMatchObject({
      daemons: [0, 2],
      overhead: { cpu: 400 },
    });
  });
});
