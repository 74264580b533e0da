import { Requirements, WELL_KNOWN_LABELS_ALLOW_UNDEFINED } from '@karpenter-ts/scheduling';
import { describe, expect, it } from 'vitest';
import {
  CreateError,
  InsufficientCapacityError,
  NodeClaimNotFoundError,
  NodeClassNotReadyError,
  SimCloudProvider,
  createInstanceType,
  createOffering,
  fakeInstanceTypes,
  type InstanceType,
} from '../src/index.js';
import { ManualClock, nodeClaim, nodePool } from './builders.js';

/** Two types: `small` (2 cpu) is cheaper than `big` (8 cpu) in every offering. */
function twoTypes(): InstanceType[] {
  const make = (name: string, cores: number, price: number) =>
    createInstanceType({
      name,
      requirements: Requirements.fromNodeSelectorRequirements([
        { key: 'node.kubernetes.io/instance-type', operator: 'In', values: [name] },
        { key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] },
        { key: 'kubernetes.io/os', operator: 'In', values: ['linux'] },
        { key: 'topology.kubernetes.io/zone', operator: 'In', values: ['zone-a', 'zone-b'] },
        { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['spot', 'on-demand'] },
      ]),
      offerings: [
        createOffering({ zone: 'zone-a', capacityType: 'spot', price: price * 0.5 }),
        createOffering({ zone: 'zone-b', capacityType: 'spot', price: price * 0.6 }),
        createOffering({ zone: 'zone-a', capacityType: 'on-demand', price }),
        createOffering({ zone: 'zone-b', capacityType: 'on-demand', price }),
      ],
      capacity: { cpu: cores * 1000, memory: cores * 4 * 1024 ** 3, pods: 110 },
      overhead: { kubeReserved: { cpu: 100 } },
    });
  return [make('big', 8, 0.4), make('small', 2, 0.1)];
}

describe('SimCloudProvider.create', () => {
  it('launches on the cheapest available compatible offering and reports the node', async () => {
    const clock = new ManualClock();
    const sim = new SimCloudProvider({ instanceTypes: twoTypes(), clock });
    const launched = await sim.create(nodeClaim({ name: 'a' }));
    expect(launched.status?.providerID).toBe('sim:///zone-a/a');
    expect(launched.metadata.labels).toMatchObject({
      'node.kubernetes.io/instance-type': 'small',
      'topology.kubernetes.io/zone': 'zone-a',
      'karpenter.sh/capacity-type': 'spot',
      'kubernetes.io/arch': 'amd64',
      'kubernetes.io/os': 'linux',
      'karpenter.sh/nodepool': 'default',
    });
    expect(launched.status?.capacity).toEqual({ cpu: '2', memory: '8Gi', pods: '110' });
    expect(launched.status?.allocatable).toEqual({ cpu: '1900m', memory: '8Gi', pods: '110' });
    expect(sim.instances()).toEqual([
      {
        providerID: 'sim:///zone-a/a',
        nodeClaimName: 'a',
        instanceType: 'small',
        zone: 'zone-a',
        capacityType: 'spot',
        price: 0.05,
        launchedAt: clock.now(),
      },
    ]);
  });

  it('honours the node claim requirements on capacity type, zone and instance type', async () => {
    const sim = new SimCloudProvider({ instanceTypes: twoTypes() });
    const launched = await sim.create(
      nodeClaim({
        requirements: [
          { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand'] },
          { key: 'topology.kubernetes.io/zone', operator: 'In', values: ['zone-b'] },
          { key: 'node.kubernetes.io/instance-type', operator: 'In', values: ['big'] },
        ],
      }),
    );
    expect(launched.metadata.labels).toMatchObject({
      'node.kubernetes.io/instance-type': 'big',
      'topology.kubernetes.io/zone': 'zone-b',
      'karpenter.sh/capacity-type': 'on-demand',
    });
  });

  it('skips instance types whose allocatable does not fit the requests', async () => {
    const sim = new SimCloudProvider({ instanceTypes: twoTypes() });
    const launched = await sim.create(nodeClaim({ requests: { cpu: '3', memory: '1Gi' } }));
    expect(launched.metadata.labels?.['node.kubernetes.io/instance-type']).toBe('big');
  });

  it("launches on offerings that pin a provider label the claim leaves open, once told the label is the provider's", async () => {
    // Azure's offerings pin karpenter.azure.com/placement-scope, which no NodeClaim requires.
    const placed = twoTypes().map((it) =>
      createInstanceType({
        name: it.name,
        requirements: it.requirements,
        offerings: it.offerings.map((o) =>
          createOffering({
            zone: o.zone,
            capacityType: o.capacityType,
            price: o.price,
            labels: { 'example.com/placement-scope': 'zonal' },
          }),
        ),
        capacity: it.capacity,
      }),
    );
    await expect(
      new SimCloudProvider({ instanceTypes: placed }).create(nodeClaim()),
    ).rejects.toBeInstanceOf(InsufficientCapacityError);
    const sim = new SimCloudProvider({
      instanceTypes: placed,
      allowUndefinedLabels: new Set([
        ...WELL_KNOWN_LABELS_ALLOW_UNDEFINED,
        'example.com/placement-scope',
      ]),
    });
    const launched = await sim.create(nodeClaim());
    expect(launched.metadata.labels?.['node.kubernetes.io/instance-type']).toBe('small');
  });

  it('raises InsufficientCapacityError when no option fits', async () => {
    const sim = new SimCloudProvider({ instanceTypes: twoTypes() });
    await expect(sim.create(nodeClaim({ requests: { cpu: '64' } }))).rejects.toBeInstanceOf(
      InsufficientCapacityError,
    );
    await expect(
      sim.create(
        nodeClaim({
          requirements: [{ key: 'kubernetes.io/arch', operator: 'In', values: ['arm64'] }],
        }),
      ),
    ).rejects.toBeInstanceOf(InsufficientCapacityError);
    expect(await sim.list()).toEqual([]);
  });

  it('raises CreateError naming the resource for unparsable requests', async () => {
    const sim = new SimCloudProvider({ instanceTypes: twoTypes() });
    const err = await sim.create(nodeClaim({ requests: { cpu: 'lots' } })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CreateError);
    expect((err as CreateError).reason).toBe('InvalidNodeClaim');
    expect((err as CreateError).message).toMatch(/requests.*cpu/);
    expect((err as CreateError).cause).toBeDefined();
  });

  it('returns the running machine when the same node claim is created twice', async () => {
    const sim = new SimCloudProvider({ instanceTypes: twoTypes() });
    const first = await sim.create(nodeClaim({ name: 'same' }));
    const second = await sim.create(nodeClaim({ name: 'same' }));
    expect(second.status?.providerID).toBe(first.status?.providerID);
    expect(await sim.list()).toHaveLength(1);
  });

  it('raises NodeClassNotReadyError while the node class is not ready', async () => {
    const sim = new SimCloudProvider({ instanceTypes: twoTypes() });
    sim.setNodeClassReady('default', false);
    await expect(sim.create(nodeClaim())).rejects.toBeInstanceOf(NodeClassNotReadyError);
    sim.setNodeClassReady('default', true);
    await expect(sim.create(nodeClaim())).resolves.toBeDefined();
  });

  it('raises a queued error once', async () => {
    const sim = new SimCloudProvider({ instanceTypes: twoTypes() });
    sim.failNextCreate(new CreateError('LaunchFailed', 'boom'));
    await expect(sim.create(nodeClaim())).rejects.toThrow('boom');
    await expect(sim.create(nodeClaim())).resolves.toBeDefined();
  });
});

describe('SimCloudProvider insufficient capacity', () => {
  it('fails the launch on an injected offering, then picks another offering on the next create', async () => {
    const sim = new SimCloudProvider({ instanceTypes: twoTypes(), clock: new ManualClock() });
    sim.injectInsufficientCapacity({ instanceType: 'small', zone: 'zone-a', capacityType: 'spot' });
    const err = await sim.create(nodeClaim({ name: 'x' })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InsufficientCapacityError);
    expect((err as InsufficientCapacityError).offerings).toEqual([
      { instanceType: 'small', zone: 'zone-a', capacityType: 'spot' },
    ]);
    expect(await sim.list()).toEqual([]);

    const retry = await sim.create(nodeClaim({ name: 'x' }));
    expect(retry.metadata.labels).toMatchObject({
      'node.kubernetes.io/instance-type': 'small',
      'topology.kubernetes.io/zone': 'zone-b',
      'karpenter.sh/capacity-type': 'spot',
    });
  });

  it('reports the failed offering unavailable until the TTL passes', async () => {
    const clock = new ManualClock();
    const sim = new SimCloudProvider({
      instanceTypes: twoTypes(),
      clock,
      insufficientCapacityTtlSeconds: 180,
    });
    sim.injectInsufficientCapacity({ instanceType: 'small', capacityType: 'spot' }, { times: 1 });
    await expect(sim.create(nodeClaim())).rejects.toBeInstanceOf(InsufficientCapacityError);
    const small = () =>
      sim.getInstanceTypes(nodePool()).then((types) => types.find((t) => t.name === 'small')!);
    const unavailable = (await small()).offerings.filter((o) => !o.available);
    expect(unavailable.map((o) => `${o.capacityType}/${o.zone}`)).toEqual(['spot/zone-a']);
    expect(sim.unavailableOfferings()).toHaveLength(1);

    clock.advanceSeconds(179);
    expect((await small()).offerings.every((o) => o.available)).toBe(false);
    clock.advanceSeconds(1);
    expect((await small()).offerings.every((o) => o.available)).toBe(true);
    // The injection was for one launch only, so the cheapest offering now launches.
    const launched = await sim.create(nodeClaim());
    expect(launched.status?.providerID).toMatch(/^sim:\/\/\/zone-a\//);
  });

  it('keeps the allocatable of a type whose offerings it overrides', async () => {
    const sim = new SimCloudProvider({ instanceTypes: twoTypes() });
    await sim.markUnavailable({ zone: 'zone-a' });
    const types = await sim.getInstanceTypes(nodePool());
    const small = types.find((t) => t.name === 'small')!;
    expect(small.allocatable()).toEqual(twoTypes()[1]!.allocatable());
    expect(small.offerings.filter((o) => o.available).map((o) => o.zone)).toEqual([
      'zone-b',
      'zone-b',
    ]);
  });

  it('raises InsufficientCapacityError when every compatible offering is unavailable', async () => {
    const sim = new SimCloudProvider({ instanceTypes: twoTypes() });
    await sim.markUnavailable({ capacityType: 'spot' });
    await sim.markUnavailable({ capacityType: 'on-demand' });
    await expect(sim.create(nodeClaim())).rejects.toBeInstanceOf(InsufficientCapacityError);
    sim.clearInsufficientCapacity();
    await expect(sim.create(nodeClaim())).resolves.toBeDefined();
  });

  it('uses up reserved offerings', async () => {
    const reservedType = createInstanceType({
      name: 'reserved-type',
      requirements: Requirements.fromLabels({
        'node.kubernetes.io/instance-type': 'reserved-type',
      }),
      offerings: [
        createOffering({
          zone: 'zone-a',
          capacityType: 'reserved',
          price: 0.01,
          reservationCapacity: 1,
        }),
        createOffering({ zone: 'zone-a', capacityType: 'on-demand', price: 1 }),
      ],
      capacity: { cpu: 1000 },
    });
    const sim = new SimCloudProvider({ instanceTypes: [reservedType] });
    const first = await sim.create(nodeClaim());
    expect(first.metadata.labels?.['karpenter.sh/capacity-type']).toBe('reserved');
    const [view] = await sim.getInstanceTypes(nodePool());
    expect(view!.offerings[0]).toMatchObject({ available: false, reservationCapacity: 0 });
    const second = await sim.create(nodeClaim());
    expect(second.metadata.labels?.['karpenter.sh/capacity-type']).toBe('on-demand');
  });
});

describe('SimCloudProvider get, list and delete', () => {
  it('gets a launched node claim by provider ID', async () => {
    const sim = new SimCloudProvider({ instanceTypes: twoTypes() });
    const launched = await sim.create(nodeClaim({ name: 'g' }));
    const got = await sim.get('sim:///zone-a/g');
    expect(got).toEqual(launched);
    got.metadata.labels = {};
    expect((await sim.get('sim:///zone-a/g')).metadata.labels).not.toEqual({});
  });

  it('deletes a machine, after which get and delete raise NodeClaimNotFoundError', async () => {
    const sim = new SimCloudProvider({ instanceTypes: twoTypes() });
    const launched = await sim.create(nodeClaim({ name: 'd' }));
    await sim.delete(launched);
    await expect(sim.get('sim:///zone-a/d')).rejects.toBeInstanceOf(NodeClaimNotFoundError);
    await expect(sim.delete(launched)).rejects.toBeInstanceOf(NodeClaimNotFoundError);
  });

  it('deletes by node claim name when the claim has no provider ID yet', async () => {
    const sim = new SimCloudProvider({ instanceTypes: twoTypes() });
    await sim.create(nodeClaim({ name: 'n' }));
    await sim.delete(nodeClaim({ name: 'n' }));
    expect(await sim.list()).toEqual([]);
  });

  it("reports each machine's launch time as its creationTimestamp, not the requesting NodeClaim's", async () => {
    const clock = new ManualClock();
    const sim = new SimCloudProvider({ instanceTypes: twoTypes(), clock });
    const requested = nodeClaim({ name: 'c' });
    requested.metadata.creationTimestamp = new Date(clock.now());
    clock.advanceSeconds(90);
    const launchedAt = new Date(clock.now());
    const launched = await sim.create(requested);
    clock.advanceSeconds(600);
    expect(launched.metadata.creationTimestamp).toEqual(launchedAt);
    expect((await sim.get('sim:///zone-a/c')).metadata.creationTimestamp).toEqual(launchedAt);
    expect((await sim.list()).map((c) => c.metadata.creationTimestamp)).toEqual([launchedAt]);
  });

  it('lists every running machine in launch order', async () => {
    const sim = new SimCloudProvider({ instanceTypes: twoTypes() });
    await sim.create(nodeClaim({ name: 'one' }));
    const two = await sim.create(nodeClaim({ name: 'two' }));
    await sim.create(nodeClaim({ name: 'three' }));
    await sim.delete(two);
    expect((await sim.list()).map((c) => c.metadata.name)).toEqual(['one', 'three']);
  });
});

describe('SimCloudProvider catalog and policies', () => {
  it('takes instance types per NodePool from a catalog function', async () => {
    const sim = new SimCloudProvider({
      instanceTypes: (pool) =>
        pool === 'big-only' ? twoTypes().slice(0, 1) : fakeInstanceTypes(3),
    });
    expect((await sim.getInstanceTypes(nodePool('big-only'))).map((t) => t.name)).toEqual(['big']);
    expect(await sim.getInstanceTypes(nodePool('other'))).toHaveLength(3);
    const launched = await sim.create(nodeClaim({ nodePool: 'big-only' }));
    expect(launched.metadata.labels?.['node.kubernetes.io/instance-type']).toBe('big');
  });

  it('launches the cheapest fake benchmark type for a small request', async () => {
    const sim = new SimCloudProvider({ instanceTypes: fakeInstanceTypes(10) });
    const launched = await sim.create(nodeClaim({ requests: { cpu: '1500m', memory: '1Gi' } }));
    expect(launched.metadata.labels?.['node.kubernetes.io/instance-type']).toBe('fake-it-1');
  });

  it('reports drift reasons that were set and clears them', async () => {
    const sim = new SimCloudProvider({ instanceTypes: twoTypes() });
    const claim = nodeClaim({ name: 'drifty' });
    expect(await sim.isDrifted(claim)).toBe('');
    sim.setDrifted('drifty', 'ImageDrift');
    expect(await sim.isDrifted(claim)).toBe('ImageDrift');
    sim.setDrifted('drifty', '');
    expect(await sim.isDrifted(claim)).toBe('');
  });

  it('names itself sim, supports the sim node class and repairs NotReady nodes after 10 minutes', () => {
    const sim = new SimCloudProvider({ instanceTypes: [] });
    expect(sim.name).toBe('sim');
    expect(sim.getSupportedNodeClasses()).toEqual([
      { group: 'karpenter.sim', kind: 'SimNodeClass' },
    ]);
    expect(sim.repairPolicies()).toContainEqual({
      conditionType: 'Ready',
      conditionStatus: 'False',
      tolerationSeconds: 600,
    });
  });
});
