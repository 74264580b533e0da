/**
 * `--provider aws`, the controller killed (SIGKILL, no clean-up) while its CreateFleet calls are
 * in flight, then restarted: EC2 carries out an accepted CreateFleet whether or not the caller
 * is still there (the emulator holds each call 4 s, then launches), so every NodeClaim's instance
 * exists before the restarted controller looks; it finds each by its `karpenter.sh/nodeclaim`
 * tag instead of launching a second one, no instance is left without a NodeClaim, and the real
 * kube-scheduler binds every pod. The controller runs as a child process (test/e2e/process).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AwsHarness } from './aws-harness.js';
import { startController, type ControllerProcess } from './process/controller-process.js';
import { eventually, Workload } from './support.js';

const NAME = 'aws-crash';

let harness: AwsHarness;
let workload: Workload;
let controller: ControllerProcess | undefined;

const tagged = (i: { Tags?: { Key?: string; Value?: string }[] }) =>
  i.Tags?.find((t) => t.Key === 'karpenter.sh/nodeclaim')?.Value ?? '';

beforeAll(async () => {
  harness = await AwsHarness.start('aws-crash');
  // Four one-core pods.
  workload = new Workload(harness.api, NAME, 4);
  await harness.createNodePool(NAME, ['m5.large', 'm5.xlarge', 'c5.xlarge'], ['on-demand']);
});

afterAll(async () => {
  const ignore = () => {};
  try {
    if (controller !== undefined) await workload.remove().catch(ignore);
  } finally {
    await controller?.stop();
    await harness?.deleteNodePool(NAME);
    await harness?.stop();
  }
});

describe('a controller killed while CreateFleet is in flight (--provider aws)', () => {
  let claimNames: string[] = [];

  it('dies with a CreateFleet call accepted for every node claim and no provider ID written', async () => {
    harness.aws.faults.delay('ec2', 'CreateFleet', 4000);
    controller = await startController('aws-first', harness.controllerArgs(), harness.env);
    await workload.poolReady();
    await workload.deploy();
    const claims = await eventually(
      'a CreateFleet call in flight for every node claim',
      async () => {
        const claims = await workload.nodeClaims();
        const fleets = harness.aws.requests.filter((r) => r.action === 'CreateFleet');
        const asked = new Set(
          fleets.map((r) => {
            for (const [k, v] of r.params ?? [])
              if (
                /^TagSpecification\.\d+\.Tag\.\d+\.Value$/.test(k) &&
                claims.some((c) => c.metadata.name === v)
              )
                return v;
            return '';
          }),
        );
        return claims.length > 0 && claims.every((c) => asked.has(c.metadata.name ?? ''))
          ? claims
          : false;
      },
      45_000,
    );
    await controller.crash();
    controller = undefined;
    harness.aws.faults.clear();
    claimNames = claims.map((c) => c.metadata.name ?? '').sort();
    for (const claim of await workload.nodeClaims())
      expect(claim.status?.providerID ?? '').toBe('');
    // EC2 finishes what it accepted: one instance per node claim, tagged with its name.
    await eventually(
      'the accepted launches to finish',
      async () => (await harness.activeInstances()).length === claimNames.length,
      15_000,
    );
    expect((await harness.activeInstances()).map(tagged).sort()).toEqual(claimNames);
  });

  it('after a restart: the instances are found by tag, none duplicated or leaked, every pod bound', async () => {
    const fleetsBefore = harness.aws.requests.filter((r) => r.action === 'CreateFleet').length;
    controller = await startController('aws-restarted', harness.controllerArgs(), harness.env);
    const pods = await workload.allPodsBound(45_000).catch((err: unknown) => {
      const tail = (controller?.logs ?? []).slice(-15).map((l) => JSON.stringify(l));
      throw new Error(
        `${(err as Error).message}; the controller's last log lines:\n${tail.join('\n')}`,
      );
    });
    const claims = await eventually(
      'every node claim to carry its provider ID',
      async () => {
        const claims = await workload.nodeClaims();
        return claims.every((c) => c.status?.providerID) ? claims : false;
      },
      15_000,
    );
    expect(claims.map((c) => c.metadata.name).sort()).toEqual(claimNames);
    expect(harness.aws.requests.filter((r) => r.action === 'CreateFleet').length).toBe(
      fleetsBefore,
    );
    const instances = await harness.activeInstances();
    expect(instances.map(tagged).sort()).toEqual(claimNames);
    const nodes = await workload.nodes();
    expect(nodes.map((n) => n.spec?.providerID).sort()).toEqual(
      claims.map((c) => c.status?.providerID).sort(),
    );
    expect(pods.every((p) => nodes.some((n) => n.metadata.name === p.spec?.nodeName))).toBe(true);
  });
});
