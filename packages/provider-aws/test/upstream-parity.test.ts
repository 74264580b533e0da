/**
 * EC2NodeClass documents upstream's CRD (aws/karpenter-provider-aws v1.14.1) judges differently
 * from the rules we had rewritten (issue 15, Validation 6): each case here disagreed before.
 */
import { validate, validateNodePoolRuntime } from '@karpenter-ts/api';
import { describe, expect, it } from 'vitest';
import {
  AwsRestrictedLabelDomains,
  AwsWellKnownLabels,
  AwsWellKnownValues,
  awsKarpenterValidators,
  defaultEC2NodeClass,
  getAwsInstanceTypes,
  validateEC2NodeClass,
  type EC2NodeClass,
} from '../src/index.js';

function nodeClass(change: (spec: Record<string, unknown>) => void): EC2NodeClass {
  const nc = structuredClone(defaultEC2NodeClass());
  change(nc.spec as unknown as Record<string, unknown>);
  return nc;
}

const paths = (nc: unknown): string[] => validateEC2NodeClass(nc).map((v) => v.path);

describe('accepted upstream, refused before', () => {
  it.each<[string, (spec: Record<string, unknown>) => void]>([
    [
      'a subnet term mixing id with tags while another term has neither',
      (s) =>
        (s.subnetSelectorTerms = [{ id: 'subnet-0abc', tags: { a: 'b' } }, { tags: { c: 'd' } }]),
    ],
    [
      'a security group term mixing id with tags while another has a name only',
      (s) => (s.securityGroupSelectorTerms = [{ id: 'sg-0abc', tags: { a: 'b' } }, { name: 'n' }]),
    ],
    [
      'a capacity reservation term mixing id with ownerID while another has tags',
      (s) =>
        (s.capacityReservationSelectorTerms = [
          { id: 'cr-0abc', ownerID: '123456789012' },
          { tags: { a: 'b' } },
        ]),
    ],
    ['networkInterfaces: []', (s) => (s.networkInterfaces = [])],
    [
      'alias together with ssmParameter in one term',
      (s) => (s.amiSelectorTerms = [{ alias: 'al2023@latest', ssmParameter: '/my/ami' }]),
    ],
    [
      'grace periods such as 1.5m and 500ms',
      (s) =>
        (s.kubelet = {
          evictionSoft: { 'memory.available': '5%', 'nodefs.available': '10%' },
          evictionSoftGracePeriod: { 'memory.available': '1.5m', 'nodefs.available': '500ms' },
        }),
    ],
    ['evictionHard: ""', (s) => (s.kubelet = { evictionHard: { 'memory.available': '' } })],
    [
      'mixed-case IDs such as sg-0123ABC',
      (s) => {
        s.securityGroupSelectorTerms = [{ id: 'sg-0123ABC' }];
        s.subnetSelectorTerms = [{ id: 'subnet-0123ABC' }];
        s.amiFamily = 'AL2023';
        s.amiSelectorTerms = [{ id: 'ami-0123ABC' }];
      },
    ],
  ])('%s', (_name, change) => {
    expect(paths(nodeClass(change))).toEqual([]);
  });
});

describe('refused upstream, accepted before', () => {
  it('volumeSize: 18Ti (upstream pattern allows 1-9, 10-17, 20-27, ... 50-57 and 58 Ti)', () => {
    const nc = nodeClass(
      (s) => (s.blockDeviceMappings = [{ deviceName: '/dev/xvda', ebs: { volumeSize: '18Ti' } }]),
    );
    expect(paths(nc)).toEqual(['spec.blockDeviceMappings[0].ebs.volumeSize']);
  });

  it("volumeInitializationRate with snapshotID: ''", () => {
    const nc = nodeClass(
      (s) =>
        (s.blockDeviceMappings = [
          { deviceName: '/dev/xvdb', ebs: { snapshotID: '', volumeInitializationRate: 200 } },
        ]),
    );
    expect(paths(nc)).toEqual(['spec.blockDeviceMappings[0].ebs']);
  });
});

describe('rules kept as upstream has them', () => {
  it('every subnet term mixing id with tags is refused', () => {
    const nc = nodeClass(
      (s) => (s.subnetSelectorTerms = [{ id: 'subnet-0abc', tags: { a: 'b' } }]),
    );
    expect(paths(nc)).toEqual(['spec.subnetSelectorTerms']);
  });

  it('a non-empty networkInterfaces list still needs card 0 / device 0 as an interface', () => {
    const nc = nodeClass(
      (s) =>
        (s.networkInterfaces = [
          { networkCardIndex: 1, deviceIndex: 0, interfaceType: 'interface' },
        ]),
    );
    expect(paths(nc)).toEqual(['spec.networkInterfaces']);
  });
});

describe('the catalog reads what the CRD now accepts', () => {
  it('evictionHard memory.available "" keeps the default threshold', () => {
    const types = (nc: EC2NodeClass) =>
      getAwsInstanceTypes({ region: 'us-east-1', nodeClass: nc })
        .find((t) => t.name === 'm5.large')
        ?.allocatable();
    const empty = nodeClass((s) => (s.kubelet = { evictionHard: { 'memory.available': '' } }));
    expect(types(empty)).toEqual(types(defaultEC2NodeClass()));
  });
});

describe("karpenter.sh objects as the AWS provider's CRDs and NodePool validation judge them (Validation 3)", () => {
  const nodeClassRef = { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' };
  const requirement = (key: string, values = ['x']) => [{ key, operator: 'In', values }];
  const validators = awsKarpenterValidators();
  const refused = (obj: unknown) =>
    validate(obj, { validators })
      .filter((v) => v.apiServer === 'reject')
      .map((v) => v.path);

  it('NodePool, NodeClaim and NodeOverlay requirement keys in karpenter.k8s.aws are limited to its labels', () => {
    const pool = (key: string) => ({
      apiVersion: 'karpenter.sh/v1',
      kind: 'NodePool',
      metadata: { name: 'p' },
      spec: { template: { spec: { nodeClassRef, requirements: requirement(key) } } },
    });
    const claim = {
      apiVersion: 'karpenter.sh/v1',
      kind: 'NodeClaim',
      metadata: { name: 'c' },
      spec: { nodeClassRef, requirements: requirement('karpenter.k8s.aws/instance-colour') },
    };
    const overlay = {
      apiVersion: 'karpenter.sh/v1alpha1',
      kind: 'NodeOverlay',
      metadata: { name: 'o' },
      spec: { requirements: requirement('karpenter.k8s.aws/instance-colour'), price: '1' },
    };
    for (const obj of [pool('karpenter.k8s.aws/instance-colour'), claim, overlay])
      expect(validate(obj)).toEqual([]);
    expect(refused(pool('karpenter.k8s.aws/instance-colour'))).toEqual([
      'spec.template.spec.requirements[0].key',
    ]);
    expect(refused(pool('karpenter.k8s.aws/instance-family'))).toEqual([]);
    expect(refused(claim)).toEqual(['spec.requirements[0].key']);
    expect(refused(overlay)).toEqual(['spec.requirements[0].key']);
  });

  it.each([
    [['host'], true],
    [['Dedicated'], true],
    [['default', 'host'], false],
  ])('runtime: instance-tenancy In %j makes the NodePool not ready: %s', (values, notReady) => {
    const pool = {
      apiVersion: 'karpenter.sh/v1',
      kind: 'NodePool',
      metadata: { name: 'p' },
      spec: {
        template: {
          spec: {
            nodeClassRef,
            requirements: requirement('karpenter.k8s.aws/instance-tenancy', values),
          },
        },
      },
    };
    const runtime = validateNodePoolRuntime(pool as never, {
      extraWellKnownLabels: AwsWellKnownLabels,
      extraRestrictedDomains: AwsRestrictedLabelDomains,
      wellKnownValues: AwsWellKnownValues,
    });
    expect(runtime.map((v) => v.path)).toEqual(
      notReady ? ['spec.template.spec.requirements[0].values'] : [],
    );
  });
});
