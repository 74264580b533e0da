/**
 * The provisioner gives the scheduler the cloud provider's well-known labels
 * (`extraWellKnownLabels`, which the operator sets per provider): a pending pod may select one a
 * NodePool does not mention, as upstream providers add theirs to `v1.WellKnownLabels`.
 */
import { kwokInstanceTypes, KwokLabels, KwokWellKnownLabels } from '@karpenter-ts/cloudprovider';
import { unschedulablePod } from '@karpenter-ts/scheduling/testing';
import { describe, expect, it } from 'vitest';
import { Provisioner } from '../src/index.js';
import {
  apply,
  provision,
  readyNodePool,
  reconcileNodeClaims,
  testEnv,
  type TestEnv,
} from './helpers.js';

/** The sim cloud's KWOK catalog, with a provisioner told (or not) its well-known labels. */
async function kwokEnv(extraWellKnownLabels?: Iterable<string>): Promise<TestEnv> {
  const env = await testEnv({ instanceTypes: kwokInstanceTypes() });
  const provisioner = new Provisioner({
    client: env.client,
    cluster: env.cluster,
    cloudProvider: env.cloud,
    clock: env.clock,
    solver: 'ts',
    ...(extraWellKnownLabels ? { extraWellKnownLabels } : {}),
  });
  return { ...env, provisioner };
}

const linuxPool = () =>
  readyNodePool({ requirements: [{ key: 'kubernetes.io/os', operator: 'In', values: ['linux'] }] });

const failedScheduling = (env: TestEnv) =>
  env.client.events.filter((e) => e.reason === 'FailedScheduling').map((e) => e.message);

describe("Provisioner with the sim cloud's well-known labels", () => {
  it('launches a node with the instance-cpu a pod selects although the NodePool does not mention it', async () => {
    const env = await kwokEnv(KwokWellKnownLabels);
    await apply(
      env,
      linuxPool(),
      unschedulablePod({ nodeSelector: { [KwokLabels.InstanceCPU]: '8' } }),
    );
    const [claim, ...others] = await provision(env);
    expect(others).toHaveLength(0);
    expect(failedScheduling(env)).toEqual([]);
    expect(claim?.spec.requirements).toContainEqual({
      key: KwokLabels.InstanceCPU,
      operator: 'In',
      values: ['8'],
    });
    // Well known, so the cloud provider sets the label at launch, not the provisioner.
    expect(claim?.metadata.labels?.[KwokLabels.InstanceCPU]).toBeUndefined();
    await reconcileNodeClaims(env);
    const launched = await env.client.get('NodeClaim', { name: claim?.metadata.name ?? '' });
    expect(launched?.metadata.labels?.[KwokLabels.InstanceCPU]).toBe('8');
    expect(launched?.status?.capacity?.['cpu']).toBe('8');
  });

  it('reports a FailedScheduling event naming the requirement when no instance type has the value', async () => {
    const env = await kwokEnv(KwokWellKnownLabels);
    await apply(
      env,
      linuxPool(),
      unschedulablePod({ nodeSelector: { [KwokLabels.InstanceCPU]: '3' } }),
    );
    expect(await provision(env)).toHaveLength(0);
    const [message] = failedScheduling(env);
    expect(message).toContain('no instance type met the requirements');
    expect(message).toContain(`${KwokLabels.InstanceCPU} In [3]`);
  });

  it('without them, treats the label as one the NodePool does not know', async () => {
    const env = await kwokEnv();
    await apply(
      env,
      linuxPool(),
      unschedulablePod({ nodeSelector: { [KwokLabels.InstanceCPU]: '8' } }),
    );
    expect(await provision(env)).toHaveLength(0);
    expect(failedScheduling(env)[0]).toContain(
      `label "${KwokLabels.InstanceCPU}" does not have known values`,
    );
  });
});
