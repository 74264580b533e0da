import { describe, expect, it } from 'vitest';
import type { Pod } from '@karpenter-ts/api';
import { ManifestError } from '../src/errors.js';
import { loadManifestsStrict } from '../src/manifests/load.js';
import { parseManifestText } from '../src/manifests/parse.js';
import { expandWorkloads, type ExpandOptions } from '../src/workloads/expand.js';
import { scaleCount } from '../src/workloads/scale.js';

const NOW = new Date('2026-01-02T03:04:05Z');

function expand(yaml: string, options: ExpandOptions = {}) {
  const { documents, errors } = parseManifestText(yaml, 'w.yaml');
  expect(errors).toEqual([]);
  return expandWorkloads(documents, { now: NOW, ...options });
}

const container = `
      containers:
        - name: app
          image: app:1
          resources:
            requests: { cpu: 100m, memory: 64Mi }
            limits: { cpu: 200m, memory: 128Mi }`;

function workload(
  kind: string,
  apiVersion: string,
  spec: string,
  name = 'web',
  namespace?: string,
): string {
  return `apiVersion: ${apiVersion}
kind: ${kind}
metadata:
  name: ${name}
${namespace ? `  namespace: ${namespace}\n` : ''}spec:
${spec}`;
}

const template = `  template:
    metadata:
      labels: { app: web }
    spec:${container}`;

const names = (pods: Pod[]) => pods.map((p) => p.metadata!.name!);

describe('expandWorkloads', () => {
  it('makes replicas pods for a Deployment, named <deployment>-<pod-template-hash>-<suffix> and owned by its ReplicaSet', () => {
    const result = expand(
      workload('Deployment', 'apps/v1', `  replicas: 3\n${template}`, 'web', 'shop'),
    );
    expect(result.pending).toHaveLength(3);
    const pod = result.pending[0]!;
    const hash = pod.metadata!.labels!['pod-template-hash']!;
    expect(hash).toMatch(/^[bcdfghjklmnpqrstvwxz2456789]+$/);
    for (const name of names(result.pending))
      expect(name).toMatch(new RegExp(`^web-${hash}-[bcdfghjklmnpqrstvwxz2456789]{5}$`));
    expect(new Set(names(result.pending)).size).toBe(3);
    expect(pod.metadata!.namespace).toBe('shop');
    expect(pod.metadata!.labels!.app).toBe('web');
    expect(pod.metadata!.ownerReferences).toEqual([
      expect.objectContaining({ kind: 'ReplicaSet', name: `web-${hash}`, controller: true }),
    ]);
    expect(pod.status!.conditions).toEqual([
      expect.objectContaining({ type: 'PodScheduled', status: 'False', reason: 'Unschedulable' }),
    ]);
    expect(result.workloads).toEqual([
      expect.objectContaining({ kind: 'Deployment', name: 'web', namespace: 'shop', pods: 3 }),
    ]);
  });

  it('defaults a Deployment without replicas to one pod in namespace default', () => {
    const result = expand(workload('Deployment', 'apps/v1', template));
    expect(result.pending).toHaveLength(1);
    expect(result.pending[0]!.metadata!.namespace).toBe('default');
  });

  it('gives the same names for the same input (deterministic)', () => {
    const yaml = workload('Deployment', 'apps/v1', `  replicas: 5\n${template}`);
    expect(names(expand(yaml).pending)).toEqual(names(expand(yaml).pending));
  });

  it('applies --scale to replicas, rounding up', () => {
    expect(
      expand(workload('Deployment', 'apps/v1', `  replicas: 3\n${template}`), { scale: 0.5 })
        .pending,
    ).toHaveLength(2);
    expect(
      expand(workload('Deployment', 'apps/v1', `  replicas: 10\n${template}`), { scale: 0.3 })
        .pending,
    ).toHaveLength(3);
    expect(
      expand(workload('StatefulSet', 'apps/v1', `  replicas: 2\n${template}`), { scale: 50 })
        .pending,
    ).toHaveLength(100);
    expect(scaleCount(0, 10)).toBe(0);
    expect(scaleCount(1, 0.01)).toBe(1);
  });

  it('names StatefulSet pods by ordinal and creates one PVC per claim template and pod', () => {
    const spec = `  replicas: 2
  serviceName: db
${template}
  volumeClaimTemplates:
    - metadata: { name: data }
      spec: { accessModes: [ReadWriteOnce], resources: { requests: { storage: 1Gi } } }`;
    const result = expand(workload('StatefulSet', 'apps/v1', spec, 'db'));
    expect(names(result.pending)).toEqual(['db-0', 'db-1']);
    expect(result.pending[1]!.metadata!.labels!['statefulset.kubernetes.io/pod-name']).toBe('db-1');
    expect(result.pending[1]!.spec!.hostname).toBe('db-1');
    expect(result.pending[1]!.spec!.subdomain).toBe('db');
    expect(result.pending[1]!.spec!.volumes).toEqual([
      { name: 'data', persistentVolumeClaim: { claimName: 'data-db-1' } },
    ]);
    expect(result.persistentVolumeClaims.map((c) => c.metadata!.name)).toEqual([
      'data-db-0',
      'data-db-1',
    ]);
  });

  it('makes replicas pods for ReplicaSets and ReplicationControllers, named <owner>-<suffix>', () => {
    const rs = expand(workload('ReplicaSet', 'apps/v1', `  replicas: 2\n${template}`, 'rs'));
    expect(names(rs.pending).every((n) => /^rs-[a-z0-9]{5}$/.test(n))).toBe(true);
    expect(rs.pending[0]!.metadata!.ownerReferences![0]).toMatchObject({
      kind: 'ReplicaSet',
      name: 'rs',
    });
    const rc = expand(workload('ReplicationController', 'v1', `  replicas: 4\n${template}`, 'rc'));
    expect(rc.pending).toHaveLength(4);
    expect(rc.pending[0]!.metadata!.ownerReferences![0]).toMatchObject({
      apiVersion: 'v1',
      kind: 'ReplicationController',
    });
  });

  it('runs min(parallelism, completions) pods for a Job, parallelism alone when completions is unset', () => {
    const jobTemplate = template.replace('spec:', 'spec:\n      restartPolicy: Never');
    expect(
      expand(workload('Job', 'batch/v1', `  parallelism: 3\n  completions: 10\n${jobTemplate}`))
        .pending,
    ).toHaveLength(3);
    expect(
      expand(workload('Job', 'batch/v1', `  parallelism: 5\n  completions: 2\n${jobTemplate}`))
        .pending,
    ).toHaveLength(2);
    expect(
      expand(workload('Job', 'batch/v1', `  parallelism: 4\n${jobTemplate}`)).pending,
    ).toHaveLength(4);
    expect(expand(workload('Job', 'batch/v1', jobTemplate)).pending).toHaveLength(1);
    expect(
      expand(workload('Job', 'batch/v1', `  suspend: true\n${jobTemplate}`)).pending,
    ).toHaveLength(0);
    const job = expand(workload('Job', 'batch/v1', `  parallelism: 2\n${jobTemplate}`, 'batch'));
    expect(job.pending[0]!.metadata!.labels!['batch.kubernetes.io/job-name']).toBe('batch');
    expect(job.pending[0]!.spec!.restartPolicy).toBe('Never');
    const indexed = expand(
      workload(
        'Job',
        'batch/v1',
        `  completionMode: Indexed\n  parallelism: 2\n  completions: 2\n${jobTemplate}`,
        'ix',
      ),
    );
    expect(names(indexed.pending).map((n) => n.replace(/-[a-z0-9]{5}$/, ''))).toEqual([
      'ix-0',
      'ix-1',
    ]);
  });

  it('runs one Job of a CronJob, named <cronjob>-<scheduled minute>', () => {
    const spec = `  schedule: "*/5 * * * *"
  jobTemplate:
    spec:
      parallelism: 2
      template:
        spec:
          restartPolicy: OnFailure
          containers: [{ name: c, image: i, resources: { requests: { cpu: 1 } } }]`;
    const result = expand(workload('CronJob', 'batch/v1', spec, 'nightly'));
    const minutes = Math.floor(NOW.getTime() / 60_000);
    expect(result.pending).toHaveLength(2);
    expect(result.pending[0]!.metadata!.ownerReferences![0]).toMatchObject({
      kind: 'Job',
      name: `nightly-${minutes}`,
    });
    expect(names(result.pending)[0]).toMatch(new RegExp(`^nightly-${minutes}-[a-z0-9]{5}$`));
    expect(
      expand(workload('CronJob', 'batch/v1', `  suspend: true\n${spec}`, 'off')).pending,
    ).toHaveLength(0);
  });

  it('turns a DaemonSet into one template pod for daemonset overhead, never a pending pod, never scaled', () => {
    const result = expand(workload('DaemonSet', 'apps/v1', template, 'agent', 'kube-system'), {
      scale: 10,
    });
    expect(result.pending).toEqual([]);
    expect(result.daemonSetPods).toHaveLength(1);
    expect(result.daemonSetPods[0]!.metadata!.ownerReferences![0]).toMatchObject({
      kind: 'DaemonSet',
      name: 'agent',
    });
    expect(result.daemonSetPods[0]!.metadata!.namespace).toBe('kube-system');
  });

  it('keeps a bare pod as one pending pod (not scaled), a bound pod as bound, and skips finished pods', () => {
    const pod = (name: string, extra = '') => `apiVersion: v1
kind: Pod
metadata: { name: ${name} }
spec:
${extra}  containers: [{ name: c, image: i }]
`;
    const result = expand(
      [
        pod('a'),
        pod('b', '  nodeName: node-1\n'),
        `${pod('c')}status: { phase: Succeeded }\n`,
      ].join('---\n'),
      { scale: 3 },
    );
    expect(names(result.pending)).toEqual(['a']);
    expect(names(result.boundPods)).toEqual(['b']);
  });

  it('defaults requests from limits for containers, init containers and pod-level resources, like the API server', () => {
    const yaml = `apiVersion: v1
kind: Pod
metadata: { name: p }
spec:
  resources: { limits: { cpu: "2" } }
  initContainers:
    - name: init
      image: i
      resources: { limits: { memory: 1Gi } }
  containers:
    - name: a
      image: i
      resources: { requests: { cpu: 100m }, limits: { cpu: 500m, memory: 256Mi } }
    - name: none
      image: i
`;
    const spec = expand(yaml).pending[0]!.spec!;
    expect(spec.initContainers![0]!.resources!.requests).toEqual({ memory: '1Gi' });
    expect(spec.containers[0]!.resources!.requests).toEqual({ cpu: '100m', memory: '256Mi' });
    expect(spec.containers[1]!.resources).toBeUndefined();
    expect(spec.resources!.requests).toEqual({ cpu: '2' });
  });

  it('ignores kinds that make no pods (Services, ConfigMaps, NodePools)', () => {
    const result = expand(
      'apiVersion: v1\nkind: Service\nmetadata: { name: s }\n---\napiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: { name: n }\n',
    );
    expect(result.pending).toEqual([]);
    expect(result.workloads).toEqual([]);
  });

  it('names the file, document and field of a malformed workload', () => {
    const bad = (yaml: string) => {
      try {
        expand(yaml);
      } catch (error) {
        expect(error).toBeInstanceOf(ManifestError);
        return (error as Error).message;
      }
      throw new Error('expected a ManifestError');
    };
    expect(
      bad(
        `apiVersion: v1\nkind: Service\n---\n${workload('Deployment', 'apps/v1', `  replicas: -1\n${template}`)}`,
      ),
    ).toBe('w.yaml:2 spec.replicas: must be a non-negative integer, got -1');
    expect(bad(workload('Deployment', 'apps/v1', '  replicas: 1'))).toBe(
      'w.yaml:1 spec.template: required: a pod template',
    );
    expect(bad(workload('Deployment', 'apps/v1', template.replace('cpu: 100m', 'cpu: 1K')))).toBe(
      'w.yaml:1 spec.template.spec.containers[0].resources.requests.cpu: invalid quantity "1K": unknown suffix "K" (allowed: n u m k M G T P E, Ki Mi Gi Ti Pi Ei, e<integer>)',
    );
    expect(
      bad(
        workload(
          'Deployment',
          'apps/v1',
          template.replace('limits: { cpu: 200m', 'limits: { cpu: 50m'),
        ),
      ),
    ).toBe(
      'w.yaml:1 spec.template.spec.containers[0].resources.requests.cpu: must not exceed the limit (limits.cpu is "50m"), got "100m"',
    );
  });
});

describe('the real example workloads', () => {
  it('Online Boutique expands to 12 pending pods, one per Deployment, with requests kept as written', async () => {
    const docs = await loadManifestsStrict([
      '../../examples/workloads/online-boutique-kubernetes-manifests.yaml',
    ]);
    const result = expandWorkloads(docs, { now: NOW });
    expect(result.pending).toHaveLength(12);
    expect(result.workloads.map((w) => w.kind)).toEqual(Array(12).fill('Deployment'));
    const frontend = result.pending.find((p) => p.metadata!.name!.startsWith('frontend-'))!;
    expect(frontend.spec!.containers[0]!.resources!.requests).toEqual({
      cpu: '100m',
      memory: '64Mi',
    });
    const loadgenerator = result.pending.find((p) =>
      p.metadata!.name!.startsWith('loadgenerator-'),
    )!;
    expect(loadgenerator.spec!.initContainers![0]!.resources).toBeUndefined();
  });

  it('Sock Shop expands to 14 pending pods in namespace sock-shop, and to 700 at --scale 50', async () => {
    const docs = await loadManifestsStrict([
      '../../examples/workloads/sock-shop-complete-demo.yaml',
    ]);
    const result = expandWorkloads(docs, { now: NOW });
    expect(result.pending).toHaveLength(14);
    expect(new Set(result.pending.map((p) => p.metadata!.namespace))).toEqual(
      new Set(['sock-shop']),
    );
    expect(expandWorkloads(docs, { now: NOW, scale: 50 }).pending).toHaveLength(700);
  });
});
