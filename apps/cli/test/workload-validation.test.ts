import { describe, expect, it } from 'vitest';
import { cli } from './support/cli.js';
import { writeManifests } from './support/manifests.js';

/** A Deployment whose one container has `resources` (a YAML flow mapping). */
function deployment(resources: string, name = 'web'): string {
  return `apiVersion: apps/v1
kind: Deployment
metadata: { name: ${name} }
spec:
  replicas: 2
  template:
    metadata: { labels: { app: ${name} } }
    spec:
      containers:
        - name: app
          image: nginx
          resources: ${resources}
`;
}

interface ValidateJson {
  checked: Record<string, number>;
  problems: { file: string; document: number; field: string; message: string; object?: string }[];
}

async function validateJson(file: string): Promise<{ code: number; report: ValidateJson }> {
  const { code, stdout } = await cli('validate', file, '-o', 'json');
  return { code, report: JSON.parse(stdout) as ValidateJson };
}

const CONTAINER = 'spec.template.spec.containers[0].resources';
const UNKNOWN =
  "the apiserver drops it and returns a warning (its default fieldValidation=Warn); kubectl's default strict validation rejects it";

describe('resource requests and limits the kube-apiserver rejects', () => {
  it('validate reports negative requests and limits, naming file, document, object and field', async () => {
    const file = await writeManifests(
      'apiVersion: v1\nkind: Service\nmetadata: { name: s }\n',
      deployment('{ requests: { cpu: "-1", memory: "-1Gi" }, limits: { memory: "-2Gi" } }'),
    );
    const { code, report } = await validateJson(file);
    expect(code).toBe(1);
    expect(report.checked).toEqual({ Deployment: 1 });
    expect(report.problems).toEqual([
      {
        file,
        document: 2,
        field: `${CONTAINER}.requests.cpu`,
        message: 'must be a non-negative quantity, got "-1"',
        object: 'Deployment/web',
      },
      {
        file,
        document: 2,
        field: `${CONTAINER}.requests.memory`,
        message: 'must be a non-negative quantity, got "-1Gi"',
        object: 'Deployment/web',
      },
      {
        file,
        document: 2,
        field: `${CONTAINER}.limits.memory`,
        message: 'must be a non-negative quantity, got "-2Gi"',
        object: 'Deployment/web',
      },
    ]);
  });

  it('validate reports a request above its limit in containers and init containers', async () => {
    const file = await writeManifests(`apiVersion: v1
kind: Pod
metadata: { name: p, namespace: shop }
spec:
  initContainers:
    - name: init
      image: busybox
      resources: { requests: { memory: 2Gi }, limits: { memory: 1Gi } }
  containers:
    - name: app
      image: nginx
      resources: { requests: { cpu: "2", memory: 1Gi }, limits: { cpu: "1", memory: 1Gi } }
`);
    const { code, stdout } = await cli('validate', file);
    expect(code).toBe(1);
    expect(stdout.split('\n')).toEqual([
      `${file}:1 spec.initContainers[0].resources.requests.memory: must not exceed the limit (limits.memory is "1Gi"), got "2Gi"`,
      `${file}:1 spec.containers[0].resources.requests.cpu: must not exceed the limit (limits.cpu is "1"), got "2"`,
      '✗ 2 problems in 1 document (1 object checked in 1 file)',
      '',
    ]);
  });

  it('validate also reports the workload problems simulate stops on, such as negative replicas', async () => {
    const file = await writeManifests(
      deployment('{ requests: { cpu: 100m } }').replace('replicas: 2', 'replicas: -3'),
    );
    const { code, stdout } = await cli('validate', file);
    expect(code).toBe(1);
    expect(stdout.split('\n')[0]).toBe(
      `${file}:1 spec.replicas: must be a non-negative integer, got -3`,
    );
  });

  it("checks the pod template of a CronJob's job and pod-level resources and overhead", async () => {
    const file = await writeManifests(`apiVersion: batch/v1
kind: CronJob
metadata: { name: nightly }
spec:
  schedule: "0 3 * * *"
  jobTemplate:
    spec:
      parallelism: 2
      template:
        spec:
          restartPolicy: OnFailure
          resources: { requests: { memory: 4Gi }, limits: { memory: 2Gi } }
          overhead: { cpu: "-250m" }
          containers: [{ name: job, image: busybox }]
`);
    const { code, report } = await validateJson(file);
    expect(code).toBe(1);
    expect(report.problems.map((p) => `${p.field}: ${p.message}`)).toEqual([
      'spec.jobTemplate.spec.template.spec.resources.requests.memory: must not exceed the limit (limits.memory is "2Gi"), got "4Gi"',
      'spec.jobTemplate.spec.template.spec.overhead.cpu: must be a non-negative quantity, got "-250m"',
    ]);
  });

  it('simulate stops on them with the first problem and the count of others (exit 1)', async () => {
    const file = await writeManifests(deployment('{ requests: { cpu: "-1", memory: "-1Gi" } }'));
    const { code, stdout, stderr } = await cli('simulate', file, '--cloud', 'sim');
    expect(stdout).toBe('');
    expect(code).toBe(1);
    expect(stderr).toBe(
      `karpenter-ts: error: ${file}:1 ${CONTAINER}.requests.cpu: must be a non-negative quantity, got "-1" (and 1 more; run karpenter-ts validate)\n`,
    );
  });

  it('accepts requests equal to limits, limits alone, and zero requests', async () => {
    const file = await writeManifests(
      deployment('{ requests: { cpu: 500m, memory: "0" }, limits: { cpu: "0.5", memory: 1Gi } }'),
      deployment('{ limits: { cpu: "1" } }', 'limited'),
    );
    const { code, stdout } = await cli('validate', file);
    expect(stdout).toBe('✓ 2 objects valid (2 Deployment) in 1 file\n');
    expect(code).toBe(0);
  });

  it('writes a resource name with dots or slashes as a key, as the apiserver does: requests[nvidia.com/gpu]', async () => {
    const file = await writeManifests(
      deployment('{ requests: { nvidia.com/gpu: "2" }, limits: { nvidia.com/gpu: "-1" } }'),
    );
    const { code, stdout } = await cli('validate', file);
    expect(code).toBe(1);
    expect(stdout).toContain(
      `${file}:1 ${CONTAINER}.limits[nvidia.com/gpu]: must be a non-negative quantity, got "-1"`,
    );
  });

  it('accepts a null quantity, which the apiserver reads as zero (validate and simulate)', async () => {
    const file = await writeManifests(
      deployment(
        '{ requests: { cpu: null, memory: 64Mi }, limits: { cpu: null, memory: 128Mi } }',
      ).replace('    spec:\n', '    spec:\n      overhead: { cpu: null }\n'),
    );
    const validated = await cli('validate', file);
    expect(validated.stdout).toBe('✓ 1 object valid (1 Deployment) in 1 file\n');
    expect(validated.code).toBe(0);
    const simulated = await cli('simulate', file, '--cloud', 'sim', '-o', 'json');
    expect(simulated.stderr).toBe('');
    expect(simulated.code).toBe(0);
    const report = JSON.parse(simulated.stdout) as { totals: { scheduledPods: number } };
    expect(report.totals.scheduledPods).toBe(2);
  });

  it('reads a null limit as zero, as the apiserver decodes it: a request above it is reported', async () => {
    const file = await writeManifests(
      deployment('{ requests: { cpu: 100m }, limits: { cpu: null } }'),
    );
    const { code, stdout } = await cli('validate', file);
    expect(code).toBe(1);
    expect(stdout).toContain(
      `${file}:1 ${CONTAINER}.requests.cpu: must not exceed the limit (limits.cpu is null), got "100m"`,
    );
  });
});

describe('unknown fields in workloads', () => {
  it('validate names a misspelt resources field with the field it probably meant', async () => {
    const file = await writeManifests(deployment('{ request: { cpu: "2" } }'));
    const { code, stdout } = await cli('validate', file);
    expect(code).toBe(1);
    expect(stdout.split('\n')[0]).toBe(
      `${file}:1 ${CONTAINER}.request: unknown field "request" (did you mean "requests"?): ${UNKNOWN}`,
    );
  });

  it('checks every field the simulation reads: replicas, template spec, nodeSelector, affinity, tolerations, topology spread', async () => {
    const file = await writeManifests(`apiVersion: apps/v1
kind: StatefulSet
metadata: { name: db, namespace: data }
spec:
  replica: 3
  template:
    spec:
      nodeselector: { disk: ssd }
      containers: [{ name: db, image: postgres }]
      affinity:
        nodeAffinity:
          requiredDuringSchedulingIgnoredDuringExecutoin:
            nodeSelectorTerms: [{ matchExpressions: [{ key: a, operator: In, value: [b] }] }]
      tolerations: [{ key: k, opertor: Exists }]
      topologySpreadConstraints:
        - { maxskew: 1, topologyKey: zone, whenUnsatisfiable: DoNotSchedule }
`);
    const { code, report } = await validateJson(file);
    expect(code).toBe(1);
    expect(report.problems.map((p) => [p.field, p.message])).toEqual([
      ['spec.replica', `unknown field "replica" (did you mean "replicas"?): ${UNKNOWN}`],
      [
        'spec.template.spec.nodeselector',
        `unknown field "nodeselector" (did you mean "nodeSelector"?): ${UNKNOWN}`,
      ],
      [
        'spec.template.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecutoin',
        `unknown field "requiredDuringSchedulingIgnoredDuringExecutoin" (did you mean "requiredDuringSchedulingIgnoredDuringExecution"?): ${UNKNOWN}`,
      ],
      [
        'spec.template.spec.tolerations[0].opertor',
        `unknown field "opertor" (did you mean "operator"?): ${UNKNOWN}`,
      ],
      [
        'spec.template.spec.topologySpreadConstraints[0].maxskew',
        `unknown field "maxskew" (did you mean "maxSkew"?): ${UNKNOWN}`,
      ],
    ]);
    expect(report.problems.every((p) => p.object === 'StatefulSet/data/db')).toBe(true);
  });

  it('gives no hint when no known field is close', async () => {
    const file = await writeManifests(deployment('{ requests: { cpu: "1" }, bananas: 3 }'));
    const { stdout } = await cli('validate', file);
    expect(stdout.split('\n')[0]).toBe(
      `${file}:1 ${CONTAINER}.bananas: unknown field "bananas": ${UNKNOWN}`,
    );
  });

  it('simulate stops on a misspelt field instead of simulating pods with no requests', async () => {
    const file = await writeManifests(deployment('{ request: { cpu: "2" } }'));
    const { code, stderr } = await cli('simulate', file, '--cloud', 'sim');
    expect(code).toBe(1);
    expect(stderr).toBe(
      `karpenter-ts: error: ${file}:1 ${CONTAINER}.request: unknown field "request" (did you mean "requests"?): ${UNKNOWN}\n`,
    );
  });

  it('finds nothing to report in the real example workloads', async () => {
    const { code, stdout } = await cli('validate', '../../examples/workloads');
    expect(stdout.trimEnd().split('\n').at(-1)).toMatch(/^✓ \d+ objects valid \(.*Deployment/);
    expect(code).toBe(0);
  });
});

describe('resource values the kube-apiserver accepts with a warning', () => {
  it('validate warns of fractional bytes in memory and ephemeral-storage, as the apiserver does, and exits 0', async () => {
    const file = await writeManifests(
      deployment(
        '{ requests: { memory: 500m, ephemeral-storage: 100m, cpu: 1.5Gi }, limits: { memory: 0.5 } }',
      ),
      `apiVersion: v1
kind: Pod
metadata: { name: p }
spec:
  initContainers: [{ name: i, image: x, resources: { limits: { memory: "1.5" } } }]
  containers: [{ name: c, image: x, resources: { requests: { memory: 128Mi } } }]
`,
    );
    const { code, stdout } = await cli('validate', file, '-o', 'json');
    expect(code).toBe(0);
    const report = JSON.parse(stdout) as {
      problems: unknown[];
      warnings: { field: string; message: string; object: string }[];
    };
    expect(report.problems).toEqual([]);
    // The apiserver's words; cpu is counted in millicores, so `1.5Gi` of cpu is no fraction.
    expect(report.warnings.map((w) => `${w.object} ${w.field}: ${w.message}`)).toEqual([
      `Deployment/web ${CONTAINER}.limits.memory: fractional byte value "500m" is invalid, must be an integer`,
      `Deployment/web ${CONTAINER}.requests.memory: fractional byte value "500m" is invalid, must be an integer`,
      `Deployment/web ${CONTAINER}.requests.ephemeral-storage: fractional byte value "100m" is invalid, must be an integer`,
      'Pod/p spec.initContainers[0].resources.limits.memory: fractional byte value "1500m" is invalid, must be an integer',
    ]);
  });
});
