import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { cli } from './support/cli.js';
import { writeManifests } from './support/manifests.js';

interface ExplainJson {
  pod: string;
  requests: Record<string, string>;
  nodePools: {
    name: string;
    weight: number;
    canHost: boolean;
    reason: string;
    launch?: { instanceType: string; capacityType: string };
    instanceTypes: { fitting: number; options?: number };
    closest: {
      instanceType: string;
      short: Record<string, { requested: string; allocatable: string }>;
    }[];
  }[];
  simulation: string;
}

describe('karpenter-ts explain', () => {
  it('gives, per NodePool in weight order, the first constraint that fails or what it would launch', async () => {
    const { code, stdout, stderr } = await cli(
      'explain',
      'test/fixtures/explain',
      '--pod',
      'api',
      '--cloud',
      'sim',
      '-o',
      'json',
    );
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const report = JSON.parse(stdout) as ExplainJson;
    expect(report.pod).toMatch(/^shop\/api-[a-z0-9]+-[a-z0-9]{5}$/);
    expect(report.requests).toEqual({ cpu: '3', memory: '2Gi', pods: '1' });
    const [gpu, arm, tiny, general] = report.nodePools;
    expect(report.nodePools.map((p) => p.name)).toEqual(['gpu', 'arm', 'tiny', 'general']);
    expect(gpu).toMatchObject({
      canHost: false,
      reason: 'the pod did not tolerate taint dedicated=gpu:NoSchedule of the NodePool',
    });
    expect(arm!.canHost).toBe(false);
    expect(arm!.reason).toMatch(/^requirements do not match the pod's: .*kubernetes\.io\/arch/);
    expect(tiny!.canHost).toBe(false);
    expect(tiny!.reason).toBe(
      'no instance type is big enough: the pod requests cpu 3, memory 2Gi, pods 1',
    );
    expect(tiny!.closest).toHaveLength(3);
    for (const c of tiny!.closest)
      expect(c.short.cpu).toEqual({ requested: '3', allocatable: '1900m' });
    expect(general!.canHost).toBe(true);
    expect(general!.launch).toMatchObject({
      instanceType: 'c-4x-amd64-linux',
      capacityType: 'on-demand',
    });
    expect(report.simulation).toMatch(/^node claim 1 of 1 \(NodePool "general"/);
  });

  it('accepts an exact pod name and NAMESPACE/NAME, and prints a readable table', async () => {
    const json = JSON.parse(
      (
        await cli(
          'explain',
          'test/fixtures/explain',
          '--pod',
          'shop/api',
          '--cloud',
          'sim',
          '-o',
          'json',
        )
      ).stdout,
    ) as ExplainJson;
    const podName = json.pod.split('/')[1]!;
    const { code, stdout } = await cli(
      'explain',
      'test/fixtures/explain',
      '--pod',
      podName,
      '--cloud',
      'sim',
    );
    expect(code).toBe(0);
    expect(stdout).toContain(`Pod ${json.pod}`);
    expect(stdout).toContain(
      'NodePool "gpu" (weight 50) ✗ cannot host it: the pod did not tolerate taint dedicated=gpu:NoSchedule',
    );
    expect(stdout).toContain('NodePool "general" (weight 0) ✓ can host it: c-4x-amd64-linux');
    expect(stdout).toContain('    closest: c-2x-amd64-linux (cpu 1900m < 3)');
  });

  it('names the known workloads when the pod is not found (exit 1), and requires --pod (exit 2)', async () => {
    const missing = await cli('explain', 'test/fixtures/explain', '--pod', 'web', '--cloud', 'sim');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe(
      'karpenter-ts: error: --pod: no pending pod or workload named "web" (workloads: api)\n',
    );
    const usage = await cli('explain', 'test/fixtures/explain');
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain("required option '--pod <name>' not specified");
  });
});

describe('karpenter-ts explain output', () => {
  const BOUTIQUE = '../../examples/workloads/online-boutique-kubernetes-manifests.yaml';

  it('prints the same document as YAML with -o yaml', async () => {
    const json = await cli(
      'explain',
      BOUTIQUE,
      '--pod',
      'frontend',
      '--cloud',
      'sim',
      '-o',
      'json',
    );
    const yaml = await cli(
      'explain',
      BOUTIQUE,
      '--pod',
      'frontend',
      '--cloud',
      'sim',
      '-o',
      'yaml',
    );
    expect(yaml.code).toBe(0);
    expect(parse(yaml.stdout)).toEqual(JSON.parse(json.stdout));
  });

  it('gives the count of fitting instance types the JSON gives, and the node claim options apart', async () => {
    const { stdout } = await cli(
      'explain',
      BOUTIQUE,
      '--pod',
      'frontend',
      '--cloud',
      'aws',
      '-o',
      'json',
    );
    const pool = (JSON.parse(stdout) as ExplainJson).nodePools[0]!;
    const { fitting, options } = pool.instanceTypes;
    expect(fitting).toBeGreaterThan(600);
    expect(options).toBe(600);
    expect(pool.reason).toMatch(
      new RegExp(`; ${fitting} instance types fit; the 600 cheapest are the node claim's options$`),
    );
  });

  it('says a DaemonSet pod is daemonset overhead, not scheduled by Karpenter (exit 0)', async () => {
    const text = await cli(
      'explain',
      'test/fixtures/daemonset',
      '--pod',
      'logging',
      '--cloud',
      'sim',
    );
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(
      /^Pod kube-system\/logging-[a-z0-9]{5} \(from test\/fixtures\/daemonset\/logging\.yaml:1\) requests cpu 100m, memory 128Mi/,
    );
    expect(text.stdout).toContain(
      'It is a DaemonSet pod: Karpenter does not schedule it. The DaemonSet controller runs one on every node it fits, and Karpenter counts its requests as daemonset overhead on every node claim it fits.',
    );
    const json = await cli(
      'explain',
      'test/fixtures/daemonset',
      '--pod',
      'kube-system/logging',
      '--cloud',
      'sim',
      '-o',
      'json',
    );
    expect(JSON.parse(json.stdout)).toMatchObject({ daemonSet: true, nodePools: [] });
  });
});

describe('karpenter-ts explain closest instance types', () => {
  it('prints amounts as the rest of the CLI does: GiB with at most 2 decimals in text, exact quantities in JSON', async () => {
    const file = await writeManifests(`apiVersion: v1
kind: Pod
metadata: { name: huge }
spec:
  containers:
    - { name: c, image: nginx, resources: { requests: { cpu: "2", memory: 10240Gi } } }
`);
    const text = await cli('explain', file, '--pod', 'huge', '--cloud', 'azure');
    expect(text.code).toBe(0);
    const closest = text.stdout.split('\n').filter((l) => l.startsWith('    closest: '));
    expect(closest).toHaveLength(3);
    for (const line of closest) expect(line).toMatch(/\(memory \d+(\.\d{1,2})?Gi < 10240Gi\)$/);
    const json = await cli('explain', file, '--pod', 'huge', '--cloud', 'azure', '-o', 'json');
    const report = JSON.parse(json.stdout) as ExplainJson;
    for (const c of report.nodePools[0]!.closest)
      expect(c.short.memory!.allocatable).toMatch(/^\d+(Ki|Mi|Gi)?$/);
  });

  it('lists the type short on fewer resources first when the worst shortfall ties', async () => {
    // Both are short on ephemeral-storage by the same ratio (the worst one); Standard_D11 is
    // also short on cpu and memory, Standard_D12 only on cpu.
    const dir = await mkdtemp(join(tmpdir(), 'karpenter-closest-'));
    await writeFile(
      join(dir, 'input.yaml'),
      `apiVersion: karpenter.sh/v1
kind: NodePool
metadata: { name: d }
spec:
  template:
    spec:
      nodeClassRef: { group: karpenter.azure.com, kind: AKSNodeClass, name: default }
      requirements:
        - { key: node.kubernetes.io/instance-type, operator: In, values: [Standard_D11, Standard_D12] }
---
apiVersion: v1
kind: Pod
metadata: { name: big }
spec:
  containers:
    - name: c
      image: nginx
      resources: { requests: { cpu: '4', memory: 12Gi, ephemeral-storage: 500Gi } }
`,
    );
    const { code, stdout } = await cli(
      'explain',
      dir,
      '--pod',
      'big',
      '--cloud',
      'azure',
      '-o',
      'json',
    );
    expect(code).toBe(0);
    const report = JSON.parse(stdout) as ExplainJson;
    expect(
      report.nodePools[0]!.closest.map((c) => [c.instanceType, Object.keys(c.short).sort()]),
    ).toEqual([
      ['Standard_D12', ['cpu', 'ephemeral-storage']],
      ['Standard_D11', ['cpu', 'ephemeral-storage', 'memory']],
    ]);
  });
});

describe('karpenter-ts compare', () => {
  it('simulates the same workload on each cloud and region, side by side', async () => {
    const { code, stdout, stderr } = await cli(
      'compare',
      '../../examples/workloads/online-boutique-kubernetes-manifests.yaml',
      '--clouds',
      'azure:eastus,aws:us-east-1,sim',
      '--scale',
      '5',
      '-o',
      'json',
    );
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const rows = JSON.parse(stdout) as {
      cloud: string;
      region: string;
      totals: { nodes: number; pods: number; scheduledPods: number; pricePerHour: number };
      pricePerMonth: number;
      cpuUtilization: number;
      instanceTypes: { name: string; count: number }[];
    }[];
    expect(rows.map((r) => [r.cloud, r.region])).toEqual([
      ['azure', 'eastus'],
      ['aws', 'us-east-1'],
      ['sim', 'sim'],
    ]);
    for (const row of rows) {
      expect(row.totals).toMatchObject({ pods: 60, scheduledPods: 60 });
      expect(row.totals.nodes).toBe(row.instanceTypes.reduce((n, t) => n + t.count, 0));
      expect(row.pricePerMonth).toBeCloseTo(row.totals.pricePerHour * 730, 1);
      expect(row.cpuUtilization).toBeGreaterThan(0);
      expect(row.cpuUtilization).toBeLessThanOrEqual(1);
    }
  });

  it('rejects an unknown cloud in --clouds with exit 2', async () => {
    const { code, stderr } = await cli('compare', 'x.yaml', '--clouds', 'azure,gcp:us-central1');
    expect(code).toBe(2);
    expect(stderr).toBe(
      'karpenter-ts: error: --clouds: unknown cloud "gcp" (expected azure, aws, sim, as CLOUD[:REGION])\n',
    );
  });
});
