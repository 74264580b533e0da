import { describe, expect, it } from 'vitest';
import { cli } from './support/cli.js';
import { writeManifests } from './support/manifests.js';

/** A NodePool of a kind no cloud serves: left out. It takes team=batch pods tolerating gpu. */
const TYPO_POOL = `apiVersion: karpenter.sh/v1
kind: NodePool
metadata: { name: typo }
spec:
  template:
    metadata: { labels: { team: batch } }
    spec:
      nodeClassRef: { group: karpenter.azure.com, kind: AKSNodeClas, name: default }
      taints: [{ key: gpu, value: "true", effect: NoSchedule }]
      requirements:
        - { key: karpenter.sh/capacity-type, operator: In, values: [on-demand] }
`;
/** A usable Azure NodePool no pod below tolerates, so every pod stays pending. */
const WEB_POOL = `apiVersion: karpenter.sh/v1
kind: NodePool
metadata: { name: web }
spec:
  template:
    spec:
      nodeClassRef: { group: karpenter.azure.com, kind: AKSNodeClass, name: default }
      taints: [{ key: dedicated, value: web, effect: NoSchedule }]
      requirements:
        - { key: karpenter.sh/capacity-type, operator: In, values: [on-demand] }
`;
/** An AWS NodePool in an input that also has Azure ones: ignored on azure. */
const AWS_POOL = `apiVersion: karpenter.sh/v1
kind: NodePool
metadata: { name: aws }
spec:
  template:
    spec:
      nodeClassRef: { group: karpenter.k8s.aws, kind: EC2NodeClass, name: default }
      requirements:
        - { key: karpenter.sh/capacity-type, operator: In, values: [on-demand] }
`;
/** An Azure NodePool pinned to a zone eastus lacks: it launches nothing. */
const PINNED_POOL = `apiVersion: karpenter.sh/v1
kind: NodePool
metadata: { name: pinned }
spec:
  template:
    spec:
      nodeClassRef: { group: karpenter.azure.com, kind: AKSNodeClass, name: default }
      requirements:
        - { key: topology.kubernetes.io/zone, operator: In, values: [eastus-9] }
`;
/** An Azure NodePool whose requirements each match some VM size, but no size all of them. */
const COMBO_POOL = `apiVersion: karpenter.sh/v1
kind: NodePool
metadata: { name: combo }
spec:
  template:
    spec:
      nodeClassRef: { group: karpenter.azure.com, kind: AKSNodeClass, name: default }
      requirements:
        - { key: karpenter.azure.com/sku-family, operator: In, values: [B] }
        - { key: karpenter.azure.com/sku-gpu-count, operator: Gt, values: ["0"] }
`;

/** A one-replica Deployment whose pod spec has `extra` (indented for the pod spec). */
function deployment(name: string, extra = ''): string {
  return `apiVersion: apps/v1
kind: Deployment
metadata: { name: ${name} }
spec:
  replicas: 1
  template:
    spec:
${extra}      containers: [{ name: c, image: nginx, resources: { requests: { cpu: 500m } } }]
`;
}
const TOLERATES_GPU = `      tolerations: [{ key: gpu, operator: Exists }]\n`;
/** Typo could take it: it selects team=batch and tolerates gpu. */
const BATCH = deployment('batch', `      nodeSelector: { team: batch }\n${TOLERATES_GPU}`);
/** Typo could not take it: it does not tolerate the gpu taint. */
const PLAIN = deployment('plain');
/** Typo could not take it: it tolerates gpu but selects another NodePool by name. */
const ELSEWHERE = deployment(
  'elsewhere',
  `      nodeSelector: { karpenter.sh/nodepool: elsewhere }\n${TOLERATES_GPU}`,
);

const TYPO_REASON =
  'NodePool "typo" is not usable: spec.template.spec.nodeClassRef.kind: "AKSNodeClas" (group karpenter.azure.com) is not a NodeClass kind any cloud serves (AKSNodeClass in karpenter.azure.com, EC2NodeClass in karpenter.k8s.aws): no cloud launches from this NodePool (Karpenter ignores it)';

interface Report {
  notes: string[];
  podErrors: { pod: string; reason: string }[];
}

async function simulateJson(...docs: string[]): Promise<Report> {
  const file = await writeManifests(...docs);
  const { code, stdout, stderr } = await cli('simulate', file, '--cloud', 'azure', '-o', 'json');
  expect(stderr).toBe('');
  expect(code).toBe(0);
  return JSON.parse(stdout) as Report;
}

/** The pending reason of the pod whose name starts with `workload-`. */
function reasonOf(report: Report, workload: string): string {
  const found = report.podErrors.find((e) => e.pod.startsWith(`default/${workload}-`));
  if (!found) throw new Error(`no pending pod of ${workload} in ${JSON.stringify(report)}`);
  return found.reason;
}

describe('a NodePool left out of the simulation', () => {
  it('adds its reason only to pending pods it could have taken, and notes it once for the run', async () => {
    const report = await simulateJson(TYPO_POOL, WEB_POOL, BATCH, PLAIN, ELSEWHERE);
    expect(report.podErrors).toHaveLength(3);
    expect(reasonOf(report, 'batch')).toContain(TYPO_REASON);
    expect(reasonOf(report, 'plain')).not.toContain('"typo"');
    expect(reasonOf(report, 'elsewhere')).not.toContain('"typo"');
    // The scheduler's own reason stays for every pod.
    for (const e of report.podErrors)
      expect(e.reason).toMatch(/^incompatible with nodepool "web", did not tolerate taint/);
    expect(report.notes.filter((n) => n === TYPO_REASON)).toHaveLength(1);
  });

  it('prints the left-out reason once in the table when no pending pod matches the pool', async () => {
    const file = await writeManifests(TYPO_POOL, WEB_POOL, PLAIN, ELSEWHERE);
    const { code, stdout } = await cli('simulate', file, '--cloud', 'azure');
    expect(code).toBe(0);
    expect(stdout.split('NodePool "typo" is not usable')).toHaveLength(2);
    expect(stdout).toContain(`note: ${TYPO_REASON}`);
  });

  it('judges a pod with several required node-affinity terms by any of them, as relaxation tries each', async () => {
    const twoTerms = deployment(
      'two-terms',
      `${TOLERATES_GPU}      affinity:
        nodeAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
            nodeSelectorTerms:
              - matchExpressions: [{ key: team, operator: In, values: [web] }]
              - matchExpressions: [{ key: team, operator: In, values: [batch] }]
`,
    );
    const report = await simulateJson(TYPO_POOL, WEB_POOL, twoTerms);
    expect(reasonOf(report, 'two-terms')).toContain(TYPO_REASON);
  });

  it('names an AWS NodePool ignored on azure only for the pods it could have taken', async () => {
    const toAws = deployment('to-aws', `      nodeSelector: { karpenter.sh/nodepool: aws }\n`);
    const report = await simulateJson(WEB_POOL, AWS_POOL, toAws, ELSEWHERE);
    const ignored = 'NodePool "aws" is ignored: it references EC2NodeClass, not AKSNodeClass';
    expect(reasonOf(report, 'to-aws')).toContain(ignored);
    expect(reasonOf(report, 'elsewhere')).not.toContain('"aws"');
    expect(report.notes.filter((n) => n === ignored)).toHaveLength(1);
  });

  it('names a NodePool that launches nothing only for the pods it could have taken', async () => {
    const toPinned = deployment(
      'to-pinned',
      `      nodeSelector: { karpenter.sh/nodepool: pinned }\n`,
    );
    const report = await simulateJson(WEB_POOL, PINNED_POOL, toPinned, ELSEWHERE);
    expect(reasonOf(report, 'to-pinned')).toContain('NodePool "pinned" can launch nothing');
    expect(reasonOf(report, 'elsewhere')).not.toContain('"pinned"');
  });

  it('notes a NodePool that launches nothing once, even when no pending pod could have used it', async () => {
    const report = await simulateJson(WEB_POOL, PINNED_POOL, ELSEWHERE);
    expect(reasonOf(report, 'elsewhere')).not.toContain('"pinned"');
    expect(
      report.notes.filter((n) => n.startsWith('NodePool "pinned" can launch nothing: ')),
    ).toEqual([
      'NodePool "pinned" can launch nothing: no instance type offers topology.kubernetes.io/zone In [eastus-9] (eastus has 0, eastus-1, eastus-2, eastus-3)',
    ]);
  });

  it('names a NodePool whose requirements no instance type meets together, for the pods it could have taken', async () => {
    const toCombo = deployment(
      'to-combo',
      `      nodeSelector: { karpenter.sh/nodepool: combo }\n`,
    );
    const report = await simulateJson(COMBO_POOL, toCombo, ELSEWHERE);
    const launchesNothing =
      'NodePool "combo" can launch nothing: no instance type with an available offering meets all of its requirements together';
    expect(report.notes).toContain(launchesNothing);
    expect(reasonOf(report, 'to-combo')).toBe(`no usable NodePool: ${launchesNothing}`);
    expect(reasonOf(report, 'elsewhere')).toBe(
      'no usable NodePool (see the notes); NodePool "combo" would not take the pod anyway: incompatible requirements, key karpenter.sh/nodepool, karpenter.sh/nodepool In [elsewhere] not in karpenter.sh/nodepool In [combo]',
    );
  });

  it('without any usable NodePool, tells a pod the left-out pools would not take it either, and why', async () => {
    const report = await simulateJson(TYPO_POOL, BATCH, PLAIN);
    expect(reasonOf(report, 'batch')).toBe(`no usable NodePool: ${TYPO_REASON}`);
    expect(reasonOf(report, 'plain')).toBe(
      'no usable NodePool (see the notes); NodePool "typo" would not take the pod anyway: did not tolerate taint gpu=true:NoSchedule',
    );
  });

  it('explain gives a pending pod only the left-out pools that could have taken it', async () => {
    const file = await writeManifests(TYPO_POOL, WEB_POOL, BATCH, PLAIN);
    const plain = await cli('explain', file, '--pod', 'plain', '--cloud', 'azure', '-o', 'json');
    expect(plain.code).toBe(0);
    const explained = JSON.parse(plain.stdout) as { notes: string[]; simulation: string };
    expect(explained.simulation).toMatch(/^pending: incompatible with nodepool "web"/);
    expect(explained.simulation).not.toContain('"typo"');
    expect(explained.notes).toContain(TYPO_REASON);
    const batch = await cli('explain', file, '--pod', 'batch', '--cloud', 'azure', '-o', 'json');
    expect((JSON.parse(batch.stdout) as { simulation: string }).simulation).toContain(TYPO_REASON);
  });
});
