/**
 * What the `--provider aws` e2e suites share: the real control plane with Karpenter's and the
 * EC2NodeClass CRDs, the AWS emulator (moto behind tools/aws-emulator) whose launched instances'
 * emulated kubelets (aws-kubelet.ts) register Nodes, EC2NodeClass + NodePool creation, the
 * controller's environment (region, endpoint, the emulator's URL and credentials), clean-up.
 */
import { DescribeInstancesCommand, type Instance } from '@aws-sdk/client-ec2';
import { startAwsEmulator, type AwsEmulator } from '@karpenter-ts/aws-emulator';
import type { NodePool } from '@karpenter-ts/api';
import { connect, installCrds, karpenterCrdFiles, type KubeConnection } from '@karpenter-ts/kube';
import { ec2NodeClassCrdPath } from '@karpenter-ts/provider-aws';
import { inject } from 'vitest';
import { AwsKubelets } from './aws-kubelet.js';

/** A started harness; {@link AwsHarness.stop} ends what it started. */
export class AwsHarness {
  private constructor(
    readonly clusterName: string,
    readonly kubeconfig: string,
    readonly api: KubeConnection,
    readonly aws: AwsEmulator,
    readonly kubelets: AwsKubelets,
  ) {}

  /** Installs the CRDs, starts the emulator (seeded for `clusterName`) and the kubelets. */
  static async start(clusterName: string): Promise<AwsHarness> {
    const kubeconfig = inject('kubeconfig');
    const api = connect({ kubeconfig });
    await installCrds(api, [...karpenterCrdFiles(), ec2NodeClassCrdPath()]);
    // The kubelets need the emulator's EC2 client; the emulator's hook needs the kubelets.
    const hook: { kubelets?: AwsKubelets } = {};
    const aws = await startAwsEmulator({
      clusterName,
      onInstanceLaunched: (l) => hook.kubelets?.onInstanceLaunched(l),
    });
    const kubelets = new AwsKubelets(api, aws.clients.ec2, aws.region);
    hook.kubelets = kubelets;
    kubelets.start();
    return new AwsHarness(clusterName, kubeconfig, api, aws, kubelets);
  }

  /**
   * The controller's environment: `AWS_REGION`, `CLUSTER_ENDPOINT`, `AWS_ENDPOINT_URL` and the
   * credentials the SDK's default chain reads (an in-process operator needs them in
   * `process.env`, see {@link exportCredentials}).
   */
  get env(): Record<string, string> {
    const { accessKeyId, secretAccessKey } = this.aws.clientConfig().credentials;
    return {
      AWS_REGION: this.aws.region,
      CLUSTER_ENDPOINT: `https://${this.clusterName}.example.eks.amazonaws.com:443`,
      AWS_ENDPOINT_URL: this.aws.url,
      AWS_ACCESS_KEY_ID: accessKeyId,
      AWS_SECRET_ACCESS_KEY: secretAccessKey,
    };
  }

  /** Puts the emulator's credentials in `process.env` (the SDK's default chain reads them there). */
  exportCredentials(): void {
    process.env['AWS_ACCESS_KEY_ID'] = this.env['AWS_ACCESS_KEY_ID'];
    process.env['AWS_SECRET_ACCESS_KEY'] = this.env['AWS_SECRET_ACCESS_KEY'];
  }

  /** Arguments of a child-process controller of this cluster, leader election off. */
  controllerArgs(): string[] {
    return [
      '--kubeconfig',
      this.kubeconfig,
      '--provider',
      'aws',
      '--cluster-name',
      this.clusterName,
      '--disable-leader-election',
    ];
  }

  /**
   * Creates namespace `name`, EC2NodeClass `name` (AL2023 alias; subnets tagged
   * `karpenter.sh/discovery=<discovery>`; the seed's node security group and role) and NodePool
   * `name` on it: Linux, instance types `types`, capacity types `capacityTypes`.
   */
  async createNodePool(
    name: string,
    types: readonly string[],
    capacityTypes: readonly string[],
    discovery = this.clusterName,
  ): Promise<void> {
    await this.api.request('POST', '/api/v1/namespaces', {
      body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name } },
    });
    await this.api.request('POST', '/apis/karpenter.k8s.aws/v1/ec2nodeclasses', {
      body: {
        apiVersion: 'karpenter.k8s.aws/v1',
        kind: 'EC2NodeClass',
        metadata: { name },
        spec: {
          amiSelectorTerms: [{ alias: 'al2023@latest' }],
          subnetSelectorTerms: [{ tags: { 'karpenter.sh/discovery': discovery } }],
          securityGroupSelectorTerms: [{ tags: { 'karpenter.sh/discovery': this.clusterName } }],
          role: `KarpenterNodeRole-${this.clusterName}`,
        },
      },
    });
    const pool: NodePool = {
      apiVersion: 'karpenter.sh/v1',
      kind: 'NodePool',
      metadata: { name },
      spec: {
        template: {
          spec: {
            nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name },
            requirements: [
              { key: 'kubernetes.io/os', operator: 'In', values: ['linux'] },
              { key: 'node.kubernetes.io/instance-type', operator: 'In', values: [...types] },
              { key: 'karpenter.sh/capacity-type', operator: 'In', values: [...capacityTypes] },
            ],
          },
        },
      },
    };
    await this.api.request('POST', '/apis/karpenter.sh/v1/nodepools', { body: pool });
  }

  /** Deletes NodePool, EC2NodeClass and namespace `name`, ignoring errors (clean-up). */
  async deleteNodePool(name: string): Promise<void> {
    const ignore = () => {};
    await this.api.request('DELETE', `/apis/karpenter.sh/v1/nodepools/${name}`).catch(ignore);
    await this.api
      .request('DELETE', `/apis/karpenter.k8s.aws/v1/ec2nodeclasses/${name}`)
      .catch(ignore);
    await this.api.request('DELETE', `/api/v1/namespaces/${name}`).catch(ignore);
  }

  /** The cluster's pending and running instances in the emulator. */
  async activeInstances(): Promise<Instance[]> {
    const out = await this.aws.clients.ec2.send(
      new DescribeInstancesCommand({
        Filters: [
          { Name: 'tag:eks:eks-cluster-name', Values: [this.clusterName] },
          { Name: 'instance-state-name', Values: ['pending', 'running'] },
        ],
      }),
    );
    return (out.Reservations ?? []).flatMap((r) => r.Instances ?? []);
  }

  /** Stops the kubelets and the emulator. */
  async stop(): Promise<void> {
    this.kubelets.stop();
    await this.aws.stop();
  }
}
