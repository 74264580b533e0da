/**
 * The valid inputs the CLI fuzz suite mutates, in families that are read together: an Azure
 * file (NodePool on an AKSNodeClass, a NodeOverlay, a Deployment, a Job), an AWS file (NodePool
 * on an EC2NodeClass, a NodeOverlay, a DaemonSet, a StatefulSet, a CronJob) and a cluster
 * snapshot (examples/snapshots/sim-cluster.yaml: a kubectl List of a SimNodeClass, NodePools,
 * NodeClaims, Nodes and bound pods). Each family names the commands that read it.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';

/** A set of documents valid together, and the CLI runs (argv after the file) that read them. */
export interface FuzzFamily {
  readonly name: string;
  readonly documents: readonly unknown[];
  /** Each command after `validate`, as the arguments that follow the file name. */
  readonly commands: readonly (readonly string[])[];
}

const POD_SPEC = {
  tolerations: [
    { key: 'example.com/dedicated', operator: 'Equal', value: 'web', effect: 'NoSchedule' },
  ],
  nodeSelector: { 'kubernetes.io/os': 'linux' },
  affinity: {
    podAntiAffinity: {
      preferredDuringSchedulingIgnoredDuringExecution: [
        {
          weight: 50,
          podAffinityTerm: {
            topologyKey: 'kubernetes.io/hostname',
            labelSelector: { matchLabels: { app: 'web' } },
          },
        },
      ],
    },
  },
  topologySpreadConstraints: [
    {
      maxSkew: 1,
      topologyKey: 'topology.kubernetes.io/zone',
      whenUnsatisfiable: 'ScheduleAnyway',
      labelSelector: { matchLabels: { app: 'web' } },
    },
  ],
  initContainers: [{ name: 'init', image: 'busybox', resources: { requests: { cpu: '50m' } } }],
  containers: [
    {
      name: 'web',
      image: 'nginx',
      ports: [{ containerPort: 80, hostPort: 8080 }],
      resources: { requests: { cpu: '250m', memory: '256Mi' }, limits: { memory: '512Mi' } },
    },
  ],
};

const nodeOverlay = (arch: string) => ({
  apiVersion: 'karpenter.sh/v1alpha1',
  kind: 'NodeOverlay',
  metadata: { name: 'discount' },
  spec: {
    weight: 10,
    requirements: [{ key: 'kubernetes.io/arch', operator: 'In', values: [arch] }],
    priceAdjustment: '-10%',
    capacity: { 'example.com/device': '2' },
  },
});

const AZURE: FuzzFamily = {
  name: 'azure',
  documents: [
    {
      apiVersion: 'karpenter.sh/v1',
      kind: 'NodePool',
      metadata: { name: 'general', labels: { team: 'web' } },
      spec: {
        weight: 10,
        limits: { cpu: '1000', memory: '1000Gi' },
        disruption: {
          consolidationPolicy: 'WhenEmpty',
          consolidateAfter: '30s',
          budgets: [{ nodes: '10%' }, { nodes: '0', schedule: '0 9 * * 1-5', duration: '8h' }],
        },
        template: {
          metadata: { labels: { tier: 'app' } },
          spec: {
            nodeClassRef: { group: 'karpenter.azure.com', kind: 'AKSNodeClass', name: 'nodes' },
            expireAfter: '720h',
            taints: [{ key: 'example.com/dedicated', value: 'web', effect: 'NoSchedule' }],
            startupTaints: [{ key: 'example.com/booting', effect: 'NoExecute' }],
            requirements: [
              { key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] },
              // A few families and sizes keep each run quick (the fuzz runs thousands).
              { key: 'karpenter.azure.com/sku-family', operator: 'In', values: ['D', 'F'] },
              { key: 'karpenter.azure.com/sku-cpu', operator: 'Gt', values: ['1'] },
              { key: 'karpenter.azure.com/sku-cpu', operator: 'Lt', values: ['9'] },
              { key: 'node.kubernetes.io/instance-type', operator: 'Exists', minValues: 2 },
            ],
          },
        },
      },
    },
    {
      apiVersion: 'karpenter.azure.com/v1beta1',
      kind: 'AKSNodeClass',
      metadata: { name: 'nodes' },
      spec: {
        imageFamily: 'Ubuntu',
        osDiskSizeGB: 128,
        maxPods: 110,
        tags: { team: 'web' },
        kubelet: { cpuManagerPolicy: 'none', imageGCHighThresholdPercent: 85 },
      },
    },
    nodeOverlay('amd64'),
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: 'shop' },
      spec: {
        replicas: 3,
        selector: { matchLabels: { app: 'web' } },
        template: { metadata: { labels: { app: 'web' } }, spec: POD_SPEC },
      },
    },
    {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'report' },
      spec: {
        parallelism: 2,
        completions: 4,
        template: {
          spec: {
            restartPolicy: 'Never',
            overhead: { cpu: '10m' },
            containers: [
              {
                name: 'run',
                image: 'busybox',
                resources: { requests: { cpu: '1', memory: '1Gi' } },
              },
            ],
          },
        },
      },
    },
  ],
  commands: [
    ['simulate', '--cloud', 'azure'],
    ['explain', '--pod', 'web', '--cloud', 'azure'],
  ],
};

const AWS: FuzzFamily = {
  name: 'aws',
  documents: [
    {
      apiVersion: 'karpenter.sh/v1',
      kind: 'NodePool',
      metadata: { name: 'aws-default' },
      spec: {
        template: {
          spec: {
            nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' },
            requirements: [
              { key: 'karpenter.k8s.aws/instance-category', operator: 'In', values: ['c', 'm'] },
              { key: 'karpenter.k8s.aws/instance-generation', operator: 'Gt', values: ['5'] },
              { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['spot', 'on-demand'] },
            ],
            expireAfter: 'Never',
          },
        },
        disruption: { consolidationPolicy: 'WhenEmptyOrUnderutilized', consolidateAfter: '1m' },
        limits: { cpu: '2000', memory: '8000Gi', 'nvidia.com/gpu': '4' },
      },
    },
    {
      apiVersion: 'karpenter.k8s.aws/v1',
      kind: 'EC2NodeClass',
      metadata: { name: 'default' },
      spec: {
        role: 'KarpenterNodeRole-demo',
        amiSelectorTerms: [{ alias: 'al2023@latest' }],
        subnetSelectorTerms: [{ tags: { 'karpenter.sh/discovery': 'demo' } }],
        securityGroupSelectorTerms: [{ tags: { 'karpenter.sh/discovery': 'demo' } }],
        blockDeviceMappings: [
          { deviceName: '/dev/xvda', ebs: { volumeSize: '100Gi', volumeType: 'gp3' } },
        ],
        kubelet: { maxPods: 110, systemReserved: { cpu: '100m', memory: '100Mi' } },
        metadataOptions: { httpTokens: 'required', httpPutResponseHopLimit: 1 },
      },
    },
    nodeOverlay('arm64'),
    {
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      metadata: { name: 'agent', namespace: 'kube-system' },
      spec: {
        selector: { matchLabels: { app: 'agent' } },
        template: {
          metadata: { labels: { app: 'agent' } },
          spec: {
            containers: [
              {
                name: 'agent',
                image: 'agent',
                resources: { requests: { cpu: '100m', memory: '128Mi' } },
              },
            ],
          },
        },
      },
    },
    {
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      metadata: { name: 'db', namespace: 'data' },
      spec: {
        replicas: 2,
        serviceName: 'db',
        selector: { matchLabels: { app: 'db' } },
        template: {
          metadata: { labels: { app: 'db' } },
          spec: {
            affinity: {
              nodeAffinity: {
                requiredDuringSchedulingIgnoredDuringExecution: {
                  nodeSelectorTerms: [
                    {
                      matchExpressions: [
                        {
                          key: 'karpenter.sh/capacity-type',
                          operator: 'In',
                          values: ['on-demand'],
                        },
                      ],
                    },
                  ],
                },
              },
            },
            containers: [
              { name: 'db', image: 'db', resources: { requests: { cpu: '2', memory: '8Gi' } } },
            ],
          },
        },
      },
    },
    {
      apiVersion: 'batch/v1',
      kind: 'CronJob',
      metadata: { name: 'nightly' },
      spec: {
        schedule: '0 2 * * *',
        jobTemplate: {
          spec: {
            parallelism: 3,
            template: {
              spec: {
                restartPolicy: 'OnFailure',
                containers: [
                  { name: 'run', image: 'run', resources: { requests: { cpu: '500m' } } },
                ],
              },
            },
          },
        },
      },
    },
  ],
  commands: [
    ['simulate', '--cloud', 'aws'],
    ['compare', '--clouds', 'aws,azure'],
  ],
};

const snapshotFile = fileURLToPath(
  new URL('../../../../examples/snapshots/sim-cluster.yaml', import.meta.url),
);

const SNAPSHOT: FuzzFamily = {
  name: 'snapshot',
  // The List's items, each a document: mutations spread over the objects, not the List.
  documents: parseAllDocuments(readFileSync(snapshotFile, 'utf8')).flatMap((doc) => {
    const list = doc.toJS() as { items: unknown[] };
    return list.items;
  }),
  commands: [
    ['disrupt', '--now', '2026-12-01T10:00:00Z'],
    ['simulate', '--cloud', 'sim'],
  ],
};

/** Every family the CLI fuzz suite mutates. */
export const FUZZ_FAMILIES: readonly FuzzFamily[] = [AZURE, AWS, SNAPSHOT];
