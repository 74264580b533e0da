import { describe, expect, it } from 'vitest';
import {
  applyEC2NodeClassDefaults,
  defaultEC2NodeClass,
  validateEC2NodeClass,
  type EC2NodeClass,
} from '../src/index.js';

/** The default EC2NodeClass with `change` applied to a copy of its spec. */
function nodeClass(
  change: (spec: Record<string, unknown>) => void = () => undefined,
): EC2NodeClass {
  const nc = structuredClone(defaultEC2NodeClass());
  change(nc.spec as unknown as Record<string, unknown>);
  return nc;
}

/** `path: message` for every violation, for readable assertions. */
function problems(obj: unknown): string[] {
  return validateEC2NodeClass(obj).map((v) => `${v.path}: ${v.message}`);
}

function expectProblem(obj: unknown, path: string, message: RegExp) {
  const found = validateEC2NodeClass(obj);
  expect(
    found.some((v) => v.path === path && message.test(v.message)),
    `expected ${path} ~ ${message}, got ${JSON.stringify(found.map((v) => `${v.path}: ${v.message}`))}`,
  ).toBe(true);
}

describe('validateEC2NodeClass: valid objects', () => {
  it('accepts the default EC2NodeClass', () => {
    expect(problems(defaultEC2NodeClass())).toEqual([]);
  });

  it('accepts a fully specified EC2NodeClass', () => {
    const nc = nodeClass((spec) => {
      spec.role = undefined;
      delete spec.role;
      spec.instanceProfile = 'KarpenterNodeInstanceProfile';
      spec.amiFamily = 'AL2023';
      spec.amiSelectorTerms = [{ name: 'my-ami-*', owner: '123456789012' }, { id: 'ami-0123abcd' }];
      spec.subnetSelectorTerms = [{ id: 'subnet-0abc' }, { tags: { team: '*' } }];
      spec.securityGroupSelectorTerms = [{ name: 'nodes' }, { id: 'sg-0abc' }];
      spec.capacityReservationSelectorTerms = [{ ownerID: '123456789012', tags: { a: 'b' } }];
      spec.placementGroupSelector = { name: 'pg' };
      spec.tags = { team: 'platform' };
      spec.kubelet = {
        maxPods: 110,
        podsPerCore: 10,
        kubeReserved: { cpu: '200m', memory: '1Gi' },
        systemReserved: { 'ephemeral-storage': '2Gi', pid: '100' },
        evictionHard: { 'memory.available': '5%', 'nodefs.available': '10%' },
        evictionSoft: { 'memory.available': '500Mi' },
        evictionSoftGracePeriod: { 'memory.available': '1m30s' },
        imageGCHighThresholdPercent: 85,
        imageGCLowThresholdPercent: 80,
      };
      spec.blockDeviceMappings = [
        {
          deviceName: '/dev/xvda',
          rootVolume: true,
          ebs: { volumeSize: '100Gi', volumeType: 'gp3' },
        },
      ];
      spec.instanceStorePolicy = 'RAID0';
      spec.networkInterfaces = [
        { networkCardIndex: 0, deviceIndex: 0, interfaceType: 'interface' },
        { networkCardIndex: 1, deviceIndex: 0, interfaceType: 'efa-only' },
      ];
      spec.connectionTracking = { udpTimeout: 30 };
      spec.cpuOptions = { nestedVirtualization: 'enabled' };
    });
    expect(problems(nc)).toEqual([]);
  });

  it('defaults metadataOptions to IMDSv2 with hop limit 1', () => {
    expect(applyEC2NodeClassDefaults(defaultEC2NodeClass()).spec.metadataOptions).toEqual({
      httpEndpoint: 'enabled',
      httpProtocolIPv6: 'disabled',
      httpPutResponseHopLimit: 1,
      httpTokens: 'required',
    });
  });
});

describe('validateEC2NodeClass: violations carry field paths', () => {
  it('requires exactly one of role and instanceProfile', () => {
    expectProblem(
      nodeClass((s) => (s.instanceProfile = 'p')),
      'spec',
      /exactly one of role or instanceProfile/,
    );
    expectProblem(
      nodeClass((s) => delete s.role),
      'spec',
      /exactly one of role or instanceProfile/,
    );
    expectProblem(
      nodeClass((s) => (s.role = '')),
      'spec.role',
      /role cannot be empty/,
    );
  });

  it('requires the selector terms', () => {
    expectProblem(
      nodeClass((s) => delete s.subnetSelectorTerms),
      'spec.subnetSelectorTerms',
      /required field is missing/,
    );
    expectProblem(
      nodeClass((s) => (s.securityGroupSelectorTerms = [])),
      'spec.securityGroupSelectorTerms',
      /.+/,
    );
  });

  it('checks subnet and security group terms', () => {
    expectProblem(
      nodeClass((s) => (s.subnetSelectorTerms = [{ id: 'subnet-1', tags: { a: 'b' } }])),
      'spec.subnetSelectorTerms',
      /with id cannot also set tags/,
    );
    expectProblem(
      nodeClass((s) => (s.subnetSelectorTerms = [{}])),
      'spec.subnetSelectorTerms[0]',
      /needs tags or id/,
    );
    expectProblem(
      nodeClass((s) => (s.subnetSelectorTerms = [{ id: 'vpc-1' }])),
      'spec.subnetSelectorTerms[0].id',
      /.+/,
    );
    expectProblem(
      nodeClass((s) => (s.subnetSelectorTerms = [{ tags: { '': 'x' } }])),
      'spec.subnetSelectorTerms[0].tags[]',
      /empty tag keys or values/,
    );
    expectProblem(
      nodeClass((s) => (s.securityGroupSelectorTerms = [{ name: 'x', tags: { a: 'b' } }])),
      'spec.securityGroupSelectorTerms',
      /with name cannot also set tags or id/,
    );
  });

  it('enforces the AMI selector rules', () => {
    expectProblem(
      nodeClass((s) => (s.amiSelectorTerms = [{ alias: 'al2023@latest' }, { id: 'ami-1' }])),
      'spec.amiSelectorTerms',
      /alias amiSelectorTerm must be the only/,
    );
    expectProblem(
      nodeClass((s) => (s.amiSelectorTerms = [{ alias: 'ubuntu@latest' }])),
      'spec.amiSelectorTerms[0].alias',
      /alias family must be one of/,
    );
    expectProblem(
      nodeClass((s) => (s.amiSelectorTerms = [{ alias: 'windows2022@v1' }])),
      'spec.amiSelectorTerms[0].alias',
      /windows aliases only support the version latest/,
    );
    expectProblem(
      nodeClass((s) => (s.amiSelectorTerms = [{ id: 'ami-1', name: 'x' }])),
      'spec.amiSelectorTerms',
      /with id cannot also set/,
    );
    expectProblem(
      nodeClass((s) => (s.amiSelectorTerms = [{ owner: 'self' }])),
      'spec.amiSelectorTerms[0]',
      /needs one of/,
    );
  });

  it('requires amiFamily without an alias and keeps it consistent with one', () => {
    expectProblem(
      nodeClass((s) => (s.amiSelectorTerms = [{ id: 'ami-0abc' }])),
      'spec',
      /amiFamily is required when no amiSelectorTerm uses an alias/,
    );
    expectProblem(
      nodeClass((s) => (s.amiFamily = 'Bottlerocket')),
      'spec',
      /amiFamily must be unset, Custom, or the alias's family/,
    );
    expect(problems(nodeClass((s) => (s.amiFamily = 'AL2023')))).toEqual([]);
    expect(problems(nodeClass((s) => (s.amiFamily = 'Custom')))).toEqual([]);
    expectProblem(
      nodeClass((s) => (s.amiFamily = 'Ubuntu')),
      'spec.amiFamily',
      /.+/,
    );
  });

  it('rejects restricted tags', () => {
    for (const key of [
      'eks:eks-cluster-name',
      'kubernetes.io/cluster/prod',
      'karpenter.sh/nodepool',
      'karpenter.sh/nodeclaim',
      'karpenter.k8s.aws/ec2nodeclass',
    ]) {
      expectProblem(
        nodeClass((s) => (s.tags = { [key]: 'x' })),
        `spec.tags[${key}]`,
        /restricted/,
      );
    }
  });

  it('checks the kubelet block', () => {
    expectProblem(
      nodeClass(
        (s) => (s.kubelet = { imageGCHighThresholdPercent: 50, imageGCLowThresholdPercent: 60 }),
      ),
      'spec.kubelet',
      /imageGCHighThresholdPercent must be greater/,
    );
    expectProblem(
      nodeClass((s) => (s.kubelet = { evictionSoft: { 'memory.available': '1Gi' } })),
      'spec.kubelet',
      /matching evictionSoftGracePeriod/,
    );
    expectProblem(
      nodeClass((s) => (s.kubelet = { evictionSoftGracePeriod: { 'memory.available': '1m' } })),
      'spec.kubelet',
      /matching evictionSoft key/,
    );
    expectProblem(
      nodeClass((s) => (s.kubelet = { kubeReserved: { gpu: '1' } })),
      'spec.kubelet.kubeReserved.gpu',
      /keys must be cpu, memory, ephemeral-storage or pid/,
    );
    expectProblem(
      nodeClass((s) => (s.kubelet = { systemReserved: { cpu: '-1' } })),
      'spec.kubelet.systemReserved.cpu',
      /cannot be negative/,
    );
    expectProblem(
      nodeClass((s) => (s.kubelet = { evictionHard: { 'memory.free': '1Gi' } })),
      'spec.kubelet.evictionHard[memory.free]',
      /evictionHard keys must be/,
    );
    expectProblem(
      nodeClass((s) => (s.kubelet = { maxPods: -1 })),
      'spec.kubelet.maxPods',
      /.+/,
    );
  });

  it('checks block device mappings', () => {
    expectProblem(
      nodeClass(
        (s) =>
          (s.blockDeviceMappings = [
            { rootVolume: true, ebs: { volumeSize: '20Gi' } },
            { rootVolume: true, ebs: { volumeSize: '30Gi' } },
          ]),
      ),
      'spec.blockDeviceMappings',
      /at most one blockDeviceMapping may set rootVolume/,
    );
    expectProblem(
      nodeClass((s) => (s.blockDeviceMappings = [{ ebs: { encrypted: true } }])),
      'spec.blockDeviceMappings[0].ebs',
      /snapshotID or volumeSize/,
    );
    expectProblem(
      nodeClass((s) => (s.blockDeviceMappings = [{ ebs: { volumeSize: '60000Gi' } }])),
      'spec.blockDeviceMappings[0].ebs.volumeSize',
      /.+/,
    );
    expectProblem(
      nodeClass(
        (s) =>
          (s.blockDeviceMappings = [
            { ebs: { volumeSize: '20Gi', volumeInitializationRate: 200 } },
          ]),
      ),
      'spec.blockDeviceMappings[0].ebs',
      /requires snapshotID/,
    );
    expectProblem(
      nodeClass(
        (s) => (s.blockDeviceMappings = [{ ebs: { volumeSize: '20Gi', volumeType: 'gp9' } }]),
      ),
      'spec.blockDeviceMappings[0].ebs.volumeType',
      /.+/,
    );
    expect(
      problems(
        nodeClass(
          (s) =>
            (s.blockDeviceMappings = [
              { ebs: { volumeSize: '64T' } },
              { ebs: { volumeSize: '58Ti' } },
            ]),
        ),
      ),
    ).toEqual([]);
  });

  it('checks network interfaces', () => {
    expectProblem(
      nodeClass(
        (s) =>
          (s.networkInterfaces = [
            { networkCardIndex: 1, deviceIndex: 0, interfaceType: 'interface' },
          ]),
      ),
      'spec.networkInterfaces',
      /must include networkCardIndex 0, deviceIndex 0/,
    );
    expectProblem(
      nodeClass(
        (s) =>
          (s.networkInterfaces = [
            { networkCardIndex: 0, deviceIndex: 0, interfaceType: 'interface' },
            { networkCardIndex: 0, deviceIndex: 0, interfaceType: 'efa-only' },
          ]),
      ),
      'spec.networkInterfaces',
      /only once/,
    );
    expectProblem(
      nodeClass(
        (s) =>
          (s.networkInterfaces = [
            { networkCardIndex: 0, deviceIndex: 0, interfaceType: 'interface' },
            { networkCardIndex: 1, deviceIndex: 0, interfaceType: 'efa-only' },
            { networkCardIndex: 1, deviceIndex: 1, interfaceType: 'efa-only' },
          ]),
      ),
      'spec.networkInterfaces',
      /at most one efa-only/,
    );
  });

  it('checks metadata options, connection tracking, placement groups and reservations', () => {
    expectProblem(
      nodeClass((s) => (s.metadataOptions = { httpPutResponseHopLimit: 65 })),
      'spec.metadataOptions.httpPutResponseHopLimit',
      /.+/,
    );
    expectProblem(
      nodeClass((s) => (s.connectionTracking = {})),
      'spec.connectionTracking',
      /at least one/,
    );
    expectProblem(
      nodeClass((s) => (s.connectionTracking = { udpTimeout: 90 })),
      'spec.connectionTracking.udpTimeout',
      /.+/,
    );
    expectProblem(
      nodeClass((s) => (s.placementGroupSelector = { name: 'a', id: 'pg-1' })),
      'spec.placementGroupSelector',
      /exactly one of name or id/,
    );
    expectProblem(
      nodeClass(
        (s) => (s.capacityReservationSelectorTerms = [{ id: 'cr-1', ownerID: '123456789012' }]),
      ),
      'spec.capacityReservationSelectorTerms',
      /with id cannot also set/,
    );
    expectProblem(
      nodeClass((s) => (s.capacityReservationSelectorTerms = [{ ownerID: '42' }])),
      'spec.capacityReservationSelectorTerms[0].ownerID',
      /.+/,
    );
  });

  it('reports unknown fields and wrong kinds', () => {
    expectProblem(
      nodeClass((s) => (s.amiSelector = { id: 'ami-1' })),
      'spec.amiSelector',
      /.+/,
    );
    const wrongVersion = { ...defaultEC2NodeClass(), apiVersion: 'karpenter.k8s.aws/v1beta1' };
    expect(validateEC2NodeClass(wrongVersion).length).toBeGreaterThan(0);
  });
});
