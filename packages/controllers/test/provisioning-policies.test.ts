import { Annotations, Labels } from '@karpenter-ts/api';
import type { MinValuesPolicy, PreferencePolicy } from '@karpenter-ts/scheduling';
import { unschedulablePod } from '@karpenter-ts/scheduling/testing';
import { describe, expect, it } from 'vitest';
import { Provisioner } from '../src/index.js';
import { apply, readyNodePool, testEnv, type TestEnv } from './helpers.js';

/** A provisioner on the test environment's client and cloud, with the given policies. */
function provisionerWith(
  env: TestEnv,
  policies: { preferencePolicy?: PreferencePolicy; minValuesPolicy?: MinValuesPolicy },
): Provisioner {
  return new Provisioner({
    client: env.client,
    cluster: env.cluster,
    cloudProvider: env.cloud,
    clock: env.clock,
    solver: 'ts',
    ...policies,
  });
}

const zoneRequirement = (env: TestEnv) =>
  env.client
    .list('NodeClaim')
    .then((claims) =>
      claims.map((c) => c.spec.requirements.find((r) => r.key === Labels.TopologyZone)),
    );

describe('Provisioner policies (--preference-policy, --min-values-policy)', () => {
  const prefersZone2 = () =>
    unschedulablePod({
      requests: { cpu: '1' },
      nodePreferences: [
        {
          weight: 10,
          matchExpressions: [{ key: Labels.TopologyZone, operator: 'In', values: ['test-zone-2'] }],
        },
      ],
    });

  it('Respect (the default) narrows the node claim to the zone the pod prefers', async () => {
    const env = await testEnv();
    await apply(env, readyNodePool(), prefersZone2());
    await provisionerWith(env, {}).provision();
    const [zone] = await zoneRequirement(env);
    expect(zone).toMatchObject({ operator: 'In', values: ['test-zone-2'] });
  });

  it('Ignore drops the preference, so the node claim may use any zone', async () => {
    const env = await testEnv();
    await apply(env, readyNodePool(), prefersZone2());
    await provisionerWith(env, { preferencePolicy: 'Ignore' }).provision();
    const zones = await zoneRequirement(env);
    expect(zones).toHaveLength(1);
    expect(zones[0]?.values ?? []).not.toEqual(['test-zone-2']);
  });

  // The catalog has 20 instance types; the pool asks for at least 30 distinct ones.
  const poolWanting30Types = () =>
    readyNodePool({
      requirements: [{ key: Labels.InstanceType, operator: 'Exists', minValues: 30 }],
    });

  it('Strict (the default) creates no node claim when minValues cannot be met', async () => {
    const env = await testEnv();
    await apply(env, poolWanting30Types(), unschedulablePod({ requests: { cpu: '1' } }));
    const out = await provisionerWith(env, {}).provision();
    expect(out.created).toHaveLength(0);
    expect(out.results.podErrors.size).toBe(1);
  });

  it('BestEffort relaxes minValues, creates the node claim and marks it relaxed', async () => {
    const env = await testEnv();
    await apply(env, poolWanting30Types(), unschedulablePod({ requests: { cpu: '1' } }));
    const out = await provisionerWith(env, { minValuesPolicy: 'BestEffort' }).provision();
    expect(out.created).toHaveLength(1);
    expect(out.created[0]?.metadata.annotations?.[Annotations.NodeClaimMinValuesRelaxed]).toBe(
      'true',
    );
  });

  it('refuses a policy name the scheduler does not know', async () => {
    const env = await testEnv();
    await apply(env, readyNodePool(), prefersZone2());
    const p = provisionerWith(env, { preferencePolicy: 'Sometimes' as PreferencePolicy });
    await expect(p.provision()).rejects.toThrow(/preferencePolicy must be "Respect" or "Ignore"/);
  });
});
