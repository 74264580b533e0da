/**
 * DaemonSet overhead carries the namespace's LimitRange defaults (issue 15, item 9): a
 * DaemonSet whose template requests nothing, in a namespace whose LimitRange defaults
 * containers to 500m/256Mi, adds 500m/256Mi to every node claim: from its newest pod when one
 * exists (the admitted spec, as upstream), else from its template with the defaults applied as
 * admission would (upstream takes the bare template; a deliberate difference). The in-memory
 * API server admits created pods through the same LimitRanger rules.
 */
import type { DaemonSet, LimitRange, Pod } from '@karpenter-ts/api';
import { podRequests } from '@karpenter-ts/scheduling';
import { unschedulablePod } from '@karpenter-ts/scheduling/testing';
import { describe, expect, it } from 'vitest';
import { admitPodResources } from '../src/limit-ranges.js';
import { apply, provision, readyNodePool, testEnv } from './helpers.js';

const limitRange = (spec: LimitRange['spec'], name = 'defaults'): LimitRange => ({
  apiVersion: 'v1',
  kind: 'LimitRange',
  metadata: { name, namespace: 'kube-system' },
  spec,
});
const containerDefaults = limitRange({
  limits: [{ type: 'Container', defaultRequest: { cpu: '500m', memory: '256Mi' } }],
});

const agent: DaemonSet = {
  apiVersion: 'apps/v1',
  kind: 'DaemonSet',
  metadata: { name: 'agent', namespace: 'kube-system', uid: 'uid-agent' },
  spec: {
    selector: { matchLabels: { app: 'agent' } },
    template: {
      metadata: { labels: { app: 'agent' } },
      spec: { containers: [{ name: 'agent', image: 'agent' }] },
    },
  },
};

describe('DaemonSet overhead with LimitRange defaults', () => {
  it('a DaemonSet with no pod yet: its template with the namespace defaults', async () => {
    const env = await testEnv();
    await env.client.create('LimitRange', containerDefaults);
    await env.client.create('DaemonSet', agent);
    await apply(env, readyNodePool(), unschedulablePod({ requests: { cpu: '1', memory: '1Gi' } }));
    const [nc] = await provision(env);
    expect(nc?.spec.resources?.requests).toMatchObject({ cpu: '1500m', memory: '1280Mi' });
  });

  it('a DaemonSet with a running pod: that pod’s admitted requests', async () => {
    const env = await testEnv();
    await env.client.create('DaemonSet', agent);
    // Admitted under a LimitRange since changed: the pod says what its DaemonSet really takes.
    const running: Pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: 'agent-x',
        namespace: 'kube-system',
        ownerReferences: [
          {
            apiVersion: 'apps/v1',
            kind: 'DaemonSet',
            name: 'agent',
            uid: 'uid-agent',
            controller: true,
          },
        ],
      },
      spec: {
        containers: [
          {
            name: 'agent',
            image: 'agent',
            resources: { requests: { cpu: '300m', memory: '64Mi' } },
          },
        ],
      },
    };
    await env.client.create('Pod', running);
    await apply(env, readyNodePool(), unschedulablePod({ requests: { cpu: '1', memory: '1Gi' } }));
    const [nc] = await provision(env);
    expect(nc?.spec.resources?.requests).toMatchObject({ cpu: '1300m', memory: '1088Mi' });
  });

  it('the in-memory API server admits a created pod with the defaults', async () => {
    const env = await testEnv();
    await env.client.create('LimitRange', containerDefaults);
    const created = await env.client.create('Pod', {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p', namespace: 'kube-system' },
      spec: { containers: [{ name: 'c', image: 'c', resources: { requests: { cpu: '2' } } }] },
    });
    expect(created.spec?.containers[0]?.resources?.requests).toEqual({ cpu: '2', memory: '256Mi' });
    const other = await env.client.create('Pod', {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p', namespace: 'default' },
      spec: { containers: [{ name: 'c', image: 'c' }] },
    });
    expect(other.spec?.containers[0]?.resources).toBeUndefined();
  });
});

describe('admitPodResources (LimitRanger)', () => {
  const pod = (resources?: Record<string, Record<string, string>>): Pod => ({
    metadata: { name: 'p', namespace: 'kube-system' },
    spec: { containers: [{ name: 'c', image: 'c', ...(resources ? { resources } : {}) }] },
  });

  it('a limit without a request requests the limit, before any default', () => {
    const admitted = admitPodResources(pod({ limits: { cpu: '2' } }), [containerDefaults]);
    expect(podRequests(admitted)).toMatchObject({ cpu: 2000, memory: 256 * 2 ** 20 });
  });

  it('reads a LimitRange as the API server stores it: defaultRequest from default, default from max, then min', () => {
    const fromDefault = limitRange({
      limits: [{ type: 'Container', default: { cpu: '700m' } } as never],
    });
    expect(podRequests(admitPodResources(pod(), [fromDefault])).cpu).toBe(700);
    const fromMax = limitRange({ limits: [{ type: 'Container', max: { cpu: '2' } }] });
    expect(admitPodResources(pod(), [fromMax]).spec?.containers[0]?.resources).toEqual({
      limits: { cpu: '2' },
      requests: { cpu: '2' },
    });
    const fromMin = limitRange({ limits: [{ type: 'Container', min: { memory: '32Mi' } }] });
    expect(podRequests(admitPodResources(pod(), [fromMin])).memory).toBe(32 * 2 ** 20);
  });

  it('leaves Pod-type items and other namespaces alone', () => {
    const podItem = limitRange({ limits: [{ type: 'Pod', max: { cpu: '4' } }] });
    const p = pod();
    expect(admitPodResources(p, [podItem])).toBe(p);
    const elsewhere = { ...containerDefaults, metadata: { name: 'x', namespace: 'default' } };
    expect(admitPodResources(p, [elsewhere])).toBe(p);
  });
});
