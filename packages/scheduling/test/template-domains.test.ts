import { describe, expect, it } from 'vitest';
import { Requirement } from '../src/requirement.js';
import { Requirements } from '../src/requirements.js';
import { instanceType } from '../src/testing/index.js';
import { templateDomainPairs } from '../src/topology/template-domains.js';

const ZONE = 'topology.kubernetes.io/zone';

/** Type `m`, whose zones come from its offerings alone; zone 2's availability as given. */
function typeM(zone2Available: boolean) {
  const it = instanceType({
    name: 'm',
    offerings: [
      { zone: 'test-zone-1', capacityType: 'on-demand', price: 1 },
      { zone: 'test-zone-2', capacityType: 'spot', price: 1, available: zone2Available },
    ],
  });
  return {
    ...it,
    requirements: new Requirements(
      Requirement.create('node.kubernetes.io/instance-type', 'In', ['m']),
    ),
  };
}

describe('the topology domains of a NodePool template', () => {
  const pool = new Requirements(Requirement.create('team', 'In', ['a', 'b']));

  it('are its own values, its instance types’ and those of their available offerings', () => {
    const pairs = templateDomainPairs(pool, [typeM(false)]);
    expect(Object.fromEntries([...pairs].map(([k, v]) => [k, [...v].sort()]))).toEqual({
      team: ['a', 'b'],
      'node.kubernetes.io/instance-type': ['m'],
      [ZONE]: ['test-zone-1'],
      'karpenter.sh/capacity-type': ['on-demand'],
    });
  });

  it('leave out offering values the template does not allow', () => {
    const onDemand = new Requirements(
      Requirement.create('karpenter.sh/capacity-type', 'In', ['on-demand']),
    );
    expect([...(templateDomainPairs(onDemand, [typeM(true)]).get(ZONE) ?? [])]).toEqual([
      'test-zone-1',
    ]);
  });

  it('are computed once per template content, and again when an offering’s availability differs', () => {
    const type = typeM(true);
    const first = templateDomainPairs(pool, [type]);
    // A new scheduler over equal requirements and the same instance type objects.
    const again = templateDomainPairs(new Requirements(...pool.values()), [type]);
    expect(again).toBe(first);
    const zone2Gone = templateDomainPairs(pool, [typeM(false)]);
    expect([...(first.get(ZONE) ?? [])].sort()).toEqual(['test-zone-1', 'test-zone-2']);
    expect([...(zone2Gone.get(ZONE) ?? [])]).toEqual(['test-zone-1']);
  });
});
