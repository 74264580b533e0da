/**
 * The Eviction API through ClusterKubeClient: the API server honours a PodDisruptionBudget
 * (429 TooManyRequestsError once the budget is spent), which the disruption controller of the
 * real kube-controller-manager keeps current.
 */
import type { Pod } from '@karpenter-ts/api';
import { NotFoundError, TooManyRequestsError } from '@karpenter-ts/controllers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClusterKubeClient } from '../../src/index.js';
import { clusterConnection, eventually, uniqueName } from './cluster.js';

const connection = clusterConnection();

describe('eviction honouring a PodDisruptionBudget on a real API server', () => {
  const namespace = uniqueName('evict');
  const nodeName = uniqueName('node');
  let client: ClusterKubeClient;

  beforeAll(async () => {
    client = new ClusterKubeClient(connection, { kinds: ['Pod', 'Node', 'PodDisruptionBudget'] });
    await client.start({ timeoutMs: 60_000 });
    await connection.request('POST', '/api/v1/namespaces', {
      body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } },
    });
    // Pods need the namespace's default ServiceAccount, which kube-controller-manager creates.
    await eventually('the default ServiceAccount', () =>
      connection
        .request('GET', `/api/v1/namespaces/${namespace}/serviceaccounts/default`)
        .then(() => true),
    );
    // There is no kubelet: a Node object and pod status written here stand in for one.
    await client.create('Node', { apiVersion: 'v1', kind: 'Node', metadata: { name: nodeName } });
    for (const name of ['web-0', 'web-1']) {
      const pod = await client.create('Pod', {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name, namespace, labels: { app: 'web' } },
        spec: { nodeName, containers: [{ name: 'app', image: 'registry.k8s.io/pause:3.10' }] },
      } as Pod);
      await client.updateStatus('Pod', {
        ...pod,
        status: {
          phase: 'Running',
          conditions: [{ type: 'Ready', status: 'True' }],
          containerStatuses: [
            {
              name: 'app',
              image: 'registry.k8s.io/pause:3.10',
              imageID: '',
              ready: true,
              restartCount: 0,
              started: true,
              state: { running: {} },
            },
          ],
        },
      });
    }
    await client.create('PodDisruptionBudget', {
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      metadata: { name: 'web', namespace },
      spec: { minAvailable: 1, selector: { matchLabels: { app: 'web' } } },
    });
    // Wait until the disruption controller has counted both healthy pods.
    await eventually('the budget to allow one disruption', async () => {
      const pdb = await client.get('PodDisruptionBudget', { name: 'web', namespace });
      return pdb?.status?.currentHealthy === 2 && pdb.status.disruptionsAllowed === 1;
    });
  });

  afterAll(async () => {
    await client?.stop();
  });

  it('evicts one pod, then refuses the second with TooManyRequestsError (429)', async () => {
    await client.evict({ name: 'web-0', namespace }, { gracePeriodSeconds: 0 });
    await eventually(
      'web-0 to be gone',
      async () => (await client.get('Pod', { name: 'web-0', namespace })) === undefined,
    );
    const refused = await client.evict({ name: 'web-1', namespace }).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(TooManyRequestsError);
    expect(String(refused)).toMatch(/disruption budget/);
    expect(await client.get('Pod', { name: 'web-1', namespace })).toBeDefined();
  });

  it('raises NotFoundError for a pod that does not exist', async () => {
    await expect(client.evict({ name: 'missing', namespace })).rejects.toBeInstanceOf(
      NotFoundError,
    );
  });
});
