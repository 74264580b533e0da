import { describe, expect, it } from 'vitest';
import { cli } from './support/cli.js';
import { writeManifests } from './support/manifests.js';

// kubectl decodes YAML with go-yaml (YAML 1.1), which resolves `<<: *anchor` merge keys.
describe('YAML merge keys (<<: *anchor), resolved as kubectl does', () => {
  it('validate accepts a container list item merged from an anchored item', async () => {
    const file = await writeManifests(`apiVersion: apps/v1
kind: Deployment
metadata: { name: merge }
spec:
  selector: { matchLabels: { a: b } }
  template:
    metadata: { labels: { a: b } }
    spec:
      containers:
      - &base
        name: one
        image: nginx
        resources: &res { requests: { cpu: 100m, memory: 64Mi } }
      - <<: *base
        name: two
        resources: *res
`);
    const { code, stdout } = await cli('validate', file);
    expect(stdout).not.toContain('<<');
    expect(code).toBe(0);
  });

  it('validate accepts limits merged from the anchored requests, the local key winning', async () => {
    const file = await writeManifests(`apiVersion: apps/v1
kind: Deployment
metadata: { name: merge2 }
spec:
  selector: { matchLabels: { a: b } }
  template:
    metadata: { labels: { a: b } }
    spec:
      containers:
      - name: one
        image: nginx
        resources:
          requests: &req { cpu: 100m, memory: 64Mi }
          limits:
            <<: *req
            memory: 128Mi
`);
    const { code, stdout } = await cli('validate', file);
    expect(stdout).not.toContain('<<');
    expect(code).toBe(0);
  });

  it('simulate keeps merged pod labels: required anti-affinity on a merged label spreads 3 replicas over 3 nodes', async () => {
    const file = await writeManifests(`apiVersion: apps/v1
kind: Deployment
metadata:
  name: merge3
  labels: &common { team: a }
spec:
  replicas: 3
  selector: { matchLabels: *common }
  template:
    metadata:
      labels:
        <<: *common
        app: merge3
    spec:
      affinity:
        podAntiAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
          - topologyKey: kubernetes.io/hostname
            labelSelector: { matchLabels: { team: a } }
      containers:
      - name: one
        image: nginx
        resources: { requests: { cpu: 100m, memory: 64Mi } }
`);
    const { code, stdout, stderr } = await cli('simulate', file, '--cloud', 'sim', '-o', 'json');
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const report = JSON.parse(stdout) as {
      totals: { nodes: number; scheduledPods: number };
    };
    expect(report.totals.scheduledPods).toBe(3);
    expect(report.totals.nodes).toBe(3);
  });
});

describe('unrendered templates', () => {
  it('reports a mapping used as a key ({{ .Values.name }}) as a YAML problem on its line, with nothing on stderr', async () => {
    const file = await writeManifests(
      'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {{ .Values.name }}\nspec: {}\n',
    );
    const { code, stdout, stderr } = await cli('validate', file);
    expect(stderr).toBe('');
    expect(code).toBe(1);
    expect(stdout).toContain(
      `${file}:1:4 a mapping key is itself a mapping or list (an unrendered template such as {{ … }}?)`,
    );
  });
});
