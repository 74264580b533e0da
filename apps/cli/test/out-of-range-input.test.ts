/**
 * Input that parses but is out of range or of the wrong type: `validate` refuses it with one
 * `file:document field: message` line, and `simulate` stops on the same line (exit 1) instead
 * of crashing or scheduling a value it cannot represent.
 */
import { describe, expect, it } from 'vitest';
import { cli } from './support/cli.js';
import { writeManifests } from './support/manifests.js';

const POD = `apiVersion: v1
kind: Pod
metadata: { name: web }
spec:
  containers: [{ name: c, image: nginx, resources: { requests: { cpu: 100m } } }]
`;

function nodePool(extra: string): string {
  return `apiVersion: karpenter.sh/v1
kind: NodePool
metadata: { name: pool }
spec:
${extra}
  template:
    spec:
      nodeClassRef: { group: karpenter.azure.com, kind: AKSNodeClass, name: default }
      requirements: []
`;
}

/** Asserts validate reports `problem` (`field: message`) on document `document`, and simulate stops on it. */
async function refusedByBoth(file: string, document: number, problem: string): Promise<void> {
  const line = `${file}:${document} ${problem}`;
  const validated = await cli('validate', file);
  expect(validated.stderr).toBe('');
  expect(validated.code).toBe(1);
  expect(validated.stdout.trim().split('\n').slice(0, -1)).toEqual([line]);
  const simulated = await cli('simulate', file);
  expect(simulated.stdout).toBe('');
  expect(simulated.stderr).toBe(`karpenter-ts: error: ${line}\n`);
  expect(simulated.code).toBe(1);
}

describe('NodePool limits', () => {
  it('refuses an unquoted 1e400 (infinity to YAML) naming the limit', async () => {
    const file = await writeManifests(nodePool('  limits: { cpu: 1e400 }'), POD);
    await refusedByBoth(
      file,
      1,
      'spec.limits.cpu: must be an integer or a string, got number Infinity (YAML reads .inf and unquoted numbers beyond ±1.8e308, such as 1e400, as infinity, which JSON cannot carry; quote it to write a string)',
    );
  });
});

describe('NodePool limits, continued', () => {
  it.each(['"-1e308"', '"-1"', '-2'])(
    'refuses a negative limit (memory: %s), which would leave the NodePool nothing to launch',
    async (memory) => {
      const file = await writeManifests(nodePool(`  limits: { memory: ${memory} }`), POD);
      await refusedByBoth(
        file,
        1,
        `spec.limits.memory: must not be negative, got ${memory} (the apiserver accepts a negative limit, but Karpenter then finds the NodePool over its limit and never launches from it)`,
      );
    },
  );

  it('accepts a quoted "1e400" limit as no limit at all, and simulates with it', async () => {
    const file = await writeManifests(nodePool('  limits: { cpu: "1e400" }'), POD);
    expect((await cli('validate', file)).code).toBe(0);
    const simulated = await cli('simulate', file, '--cloud', 'sim', '-o', 'json');
    expect(simulated.code).toBe(0);
    expect(JSON.parse(simulated.stdout).totals).toMatchObject({ pods: 1, scheduledPods: 1 });
  });
});

describe('workload quantities', () => {
  const pod = (resources: string, containers = 1) => `apiVersion: v1
kind: Pod
metadata: { name: big }
spec:
  containers:
${Array.from({ length: containers }, (_, i) => `    - { name: c${i}, image: nginx, resources: ${resources} }`).join('\n')}
`;

  it('refuses a DaemonSet memory request beyond Number.MAX_SAFE_INTEGER bytes, naming it', async () => {
    const daemonSet = `apiVersion: apps/v1
kind: DaemonSet
metadata: { name: agent }
spec:
  selector: { matchLabels: { app: agent } }
  template:
    metadata: { labels: { app: agent } }
    spec:
      containers: [{ name: a, image: agent, resources: { requests: { memory: 99999999999999999999 } } }]
`;
    const file = await writeManifests(daemonSet, POD);
    await refusedByBoth(
      file,
      1,
      'spec.template.spec.containers[0].resources.requests.memory: must be at most 9007199254740991 (Number.MAX_SAFE_INTEGER bytes, the most karpenter-ts counts exactly), got 100000000000000000000',
    );
  });

  it.each([
    [
      '{ requests: { memory: 1e20 } }',
      'requests.memory',
      '9007199254740991',
      'bytes',
      '100000000000000000000',
    ],
    ['{ limits: { cpu: "1e16" } }', 'limits.cpu', '9007199254740991m', 'millicores', '"1e16"'],
    [
      '{ requests: { example.com/dongle: 1e17 } }',
      'requests[example.com/dongle]',
      '9007199254740991',
      'units',
      '100000000000000000',
    ],
  ])(
    'refuses a pod asking %s, naming the field and the largest amount',
    async (resources, field, max, unit, got) => {
      const file = await writeManifests(pod(resources));
      await refusedByBoth(
        file,
        1,
        `spec.containers[0].resources.${field}: must be at most ${max} (Number.MAX_SAFE_INTEGER ${unit}, the most karpenter-ts counts exactly), got ${got}`,
      );
    },
  );

  it('refuses a pod whose containers together ask for more memory than can be counted exactly', async () => {
    const file = await writeManifests(pod('{ requests: { memory: 5e15 } }', 2));
    await refusedByBoth(
      file,
      1,
      'spec: the pod requests 10000000000000000 bytes of memory in all (containers, init containers, overhead), beyond 9007199254740991 (Number.MAX_SAFE_INTEGER), the most karpenter-ts counts exactly',
    );
  });
});

describe('workload fields of the wrong Kubernetes type', () => {
  const deployment = (spec: string, podSpec = '') => `apiVersion: apps/v1
kind: Deployment
metadata: { name: web }
spec:
${spec}
  selector: { matchLabels: { app: web } }
  template:
    metadata: { labels: { app: web } }
    spec:
${podSpec}
      containers: [{ name: c, image: nginx, resources: { requests: { cpu: 100m } } }]
`;

  it.each([
    [
      deployment('  replicas: 2147483648'),
      'spec.replicas: must be an integer (int32, at most 2147483647), got integer 2147483648',
    ],
    [
      deployment('  replicas: 1.0e+308'),
      'spec.replicas: must be an integer (int32, at most 2147483647), got number 1e+308',
    ],
    [
      deployment('  replicas: 2', '      topologySpreadConstraints: 5'),
      'spec.template.spec.topologySpreadConstraints: must be an array, got integer 5',
    ],
    [
      deployment('  replicas: 2', '      tolerations: { key: gpu, operator: Exists }'),
      'spec.template.spec.tolerations: must be an array, got object {"key":"gpu","operator":"Exists"}',
    ],
    [
      deployment('  replicas: 2', '      nodeSelector: { tier: 1 }'),
      'spec.template.spec.nodeSelector.tier: must be a string, got integer 1 (write it in quotes: "1")',
    ],
    [
      deployment('  replicas: 2', '      hostNetwork: yes'),
      'spec.template.spec.hostNetwork: must be a boolean, got string "yes" (YAML 1.2 reads an unquoted yes as a string, where kubectl\'s YAML 1.1 reads a boolean: write true or false)',
    ],
    [
      deployment('  strategy: { rollingUpdate: { maxSurge: [1] } }'),
      'spec.strategy.rollingUpdate.maxSurge: must be an integer or a string (int32), got array [1]',
    ],
    [
      `apiVersion: batch/v1
kind: Job
metadata: { name: batch }
spec:
  parallelism: 3000000000
  template:
    spec:
      restartPolicy: Never
      containers: [{ name: c, image: busybox }]
`,
      'spec.parallelism: must be an integer (int32, at most 2147483647), got integer 3000000000',
    ],
  ])('refuses %#: validate and simulate name the field and its type', async (manifest, problem) => {
    const file = await writeManifests(manifest);
    await refusedByBoth(file, 1, problem);
  });

  it('accepts the types as Kubernetes writes them: int-or-string, quantities as numbers, null', async () => {
    const file = await writeManifests(
      `apiVersion: apps/v1
kind: Deployment
metadata: { name: web, creationTimestamp: null, labels: { app: web } }
spec:
  replicas: 2
  strategy: { type: RollingUpdate, rollingUpdate: { maxSurge: "25%", maxUnavailable: 1 } }
  selector: { matchLabels: { app: web } }
  template:
    metadata: { labels: { app: web } }
    spec:
      tolerations: null
      volumes: [{ name: cache, emptyDir: { sizeLimit: 1073741824 } }]
      containers:
        - name: c
          image: nginx
          ports: [{ containerPort: 80 }]
          readinessProbe: { httpGet: { path: /, port: http } }
          resources: { requests: { cpu: 0.5, memory: 1073741824 } }
`,
    );
    expect(await cli('validate', file)).toMatchObject({ code: 0, stderr: '' });
    expect((await cli('simulate', file, '--cloud', 'sim')).code).toBe(0);
  });
});

describe('null in workloads, as the apiserver decodes it', () => {
  it('reads a null field as unset, and simulates the pod', async () => {
    const file = await writeManifests(`apiVersion: batch/v1
kind: Job
metadata: { name: report, labels: null }
spec:
  parallelism: null
  template:
    metadata: { labels: { app: report, team: null } }
    spec:
      restartPolicy: Never
      overhead: null
      tolerations: null
      affinity: null
      topologySpreadConstraints: null
      nodeSelector: null
      containers:
        - { name: run, image: busybox, args: [null], resources: { requests: { cpu: 500m, memory: null }, limits: null } }
`);
    expect(await cli('validate', file)).toMatchObject({ code: 0, stderr: '' });
    const simulated = await cli('simulate', file, '--cloud', 'sim', '-o', 'json');
    expect(simulated.stderr).toBe('');
    expect(JSON.parse(simulated.stdout)).toMatchObject({
      podErrors: [],
      totals: { pods: 1, scheduledPods: 1 },
    });
  });

  it('refuses a null item of a list of objects, which the apiserver reads as an empty one', async () => {
    const file = await writeManifests(`apiVersion: v1
kind: Pod
metadata: { name: web }
spec:
  tolerations: [null]
  containers: [{ name: c, image: nginx }]
`);
    await refusedByBoth(file, 1, 'spec.tolerations[0]: must be an object, got null');
  });
});

describe('pod fields the scheduler reads, checked as the apiserver checks them', () => {
  const pod = (spec: string) => `apiVersion: v1
kind: Pod
metadata: { name: web, labels: { app: web } }
spec:
${spec}
  containers: [{ name: c, image: nginx, resources: { requests: { cpu: 100m } } }]
`;
  const spread = (constraint: string) =>
    pod(
      `  topologySpreadConstraints: [{ ${constraint}, labelSelector: { matchLabels: { app: web } } }]`,
    );
  const P = 'spec.topologySpreadConstraints[0]';

  it.each([
    [
      spread('maxSkew: 1, whenUnsatisfiable: DoNotSchedule'),
      `${P}.topologyKey: required: a non-empty label key`,
    ],
    [
      spread(
        'maxSkew: 0, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: DoNotSchedule',
      ),
      `${P}.maxSkew: must be at least 1, got 0`,
    ],
    [
      spread('maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: Sometimes'),
      `${P}.whenUnsatisfiable: must be one of "DoNotSchedule", "ScheduleAnyway"; got "Sometimes"`,
    ],
    [
      pod(
        '  affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ operator: In, values: [a] }] }] } } }',
      ),
      'spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].key: required: a non-empty label key',
    ],
    [
      pod(
        '  affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [] } } }',
      ),
      'spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms: required: at least one node selector term',
    ],
    [
      pod(
        '  affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { app: web } } }] } }',
      ),
      'spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey: required: a non-empty label key',
    ],
    [
      pod('  tolerations: [{ operator: Equal, value: gpu }]'),
      'spec.tolerations[0].operator: must be "Exists" when the key is empty (it then tolerates every taint)',
    ],
    [
      pod('  nodeSelector: { "disk type": ssd }'),
      'spec.nodeSelector[disk type]: label key "disk type" is invalid: name "disk type" must be letters, digits, "-", "_", "." and start and end with a letter or digit',
    ],
  ])('refuses %#: validate and simulate name the field and the rule', async (manifest, problem) => {
    const file = await writeManifests(manifest);
    await refusedByBoth(file, 1, problem);
  });
});

describe('existing Nodes', () => {
  const node = (
    spec: string,
    allocatable = '{ cpu: "4", memory: 16Gi, pods: "110" }',
  ) => `apiVersion: v1
kind: Node
metadata: { name: node-1 }
spec: ${spec}
status: { allocatable: ${allocatable} }
`;

  it.each([
    [node('{ taints: 5 }'), 'spec.taints: must be an array, got integer 5'],
    [node('{ taints: [null] }'), 'spec.taints[0]: must be an object, got null'],
    [
      node('{}', '{ cpu: 1e400, memory: 16Gi }'),
      'status.allocatable.cpu: invalid quantity "Infinity": a quantity must be a finite number',
    ],
    [
      node('{}', '{ cpu: "4", memory: 1e20 }'),
      'status.allocatable.memory: must be at most 9007199254740991 (Number.MAX_SAFE_INTEGER bytes, the most karpenter-ts counts exactly), got 100000000000000000000',
    ],
  ])(
    'refuses a Node of the wrong shape (%#) naming the field, where simulate crashed',
    async (manifest, problem) => {
      const file = await writeManifests(manifest, POD);
      await refusedByBoth(file, 1, problem);
    },
  );

  it('accepts a Node with fields newer than the 1.34 models, and fills it', async () => {
    const file = await writeManifests(node('{ taints: null, futureField: true }'), POD);
    expect(await cli('validate', file)).toMatchObject({ code: 0, stderr: '' });
    const simulated = await cli('simulate', file, '--cloud', 'sim', '-o', 'json');
    expect(JSON.parse(simulated.stdout).existingNodes).toEqual([
      { name: 'node-1', pods: ['default/web'], podsBefore: 0 },
    ]);
  });
});

describe('an EC2NodeClass without spec', () => {
  it('is refused naming spec, by validate and by simulate on aws, where it failed unlocated', async () => {
    const file = await writeManifests(
      `apiVersion: karpenter.sh/v1
kind: NodePool
metadata: { name: pool }
spec:
  template:
    spec:
      nodeClassRef: { group: karpenter.k8s.aws, kind: EC2NodeClass, name: bare }
      requirements: []
`,
      'apiVersion: karpenter.k8s.aws/v1\nkind: EC2NodeClass\nmetadata: { name: bare }\n',
      POD,
    );
    const problem =
      'spec: required: amiSelectorTerms, subnetSelectorTerms, securityGroupSelectorTerms and a role or instanceProfile (the apiserver accepts an EC2NodeClass without spec, but Karpenter cannot launch from it)';
    const validated = await cli('validate', file);
    expect(validated.code).toBe(1);
    expect(validated.stdout.split('\n')[0]).toBe(`${file}:2 ${problem}`);
    const simulated = await cli('simulate', file, '--cloud', 'aws');
    expect(simulated.stderr).toBe(`karpenter-ts: error: ${file}:2 ${problem}\n`);
    expect(simulated.code).toBe(1);
  });
});
