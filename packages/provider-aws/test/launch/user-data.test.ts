// User data per AMI family, and how custom user data is merged (upstream's bootstrap rules).
import { describe, expect, it } from 'vitest';
import { parse as parseToml } from 'smol-toml';
import { parse as parseYaml } from 'yaml';
import { userDataFor, type BootstrapInput } from '../../src/index.js';

const input: BootstrapInput = {
  clusterName: 'demo',
  clusterEndpoint: 'https://api.demo:443',
  caBundle: 'Q0E=',
  clusterDNS: ['10.100.0.10'],
  maxPods: 29,
  labels: { 'karpenter.sh/nodepool': 'default', team: 'web' },
  taints: [{ key: 'dedicated', value: 'web', effect: 'NoSchedule' }],
  kubeReserved: { cpu: 70, memory: 442 * 1024 * 1024 },
};

function parts(mime: string): { type: string; body: string }[] {
  return mime
    .split('--//')
    .slice(1, -1)
    .map((p) => {
      const [head, ...body] = p.replace(/^\n/, '').split('\n\n');
      return { type: head!.replace('Content-Type: ', ''), body: body.join('\n\n').trim() };
    });
}

describe('AL2023 (nodeadm)', () => {
  it('is a MIME document whose only part is a NodeConfig with the cluster and kubelet settings', () => {
    const p = parts(userDataFor('AL2023', input));
    expect(p.map((x) => x.type)).toEqual(['application/node.eks.aws']);
    const config = parseYaml(p[0]!.body);
    expect(config).toMatchObject({
      apiVersion: 'node.eks.aws/v1alpha1',
      kind: 'NodeConfig',
      spec: {
        cluster: {
          name: 'demo',
          apiServerEndpoint: 'https://api.demo:443',
          certificateAuthority: 'Q0E=',
        },
        kubelet: {
          config: {
            maxPods: 29,
            clusterDNS: ['10.100.0.10'],
            kubeReserved: { cpu: '70m', memory: '442Mi' },
          },
          flags: [
            '--node-labels=karpenter.sh/nodepool=default,team=web',
            '--register-with-taints=dedicated=web:NoSchedule',
          ],
        },
      },
    });
  });

  it('puts a custom shell script, NodeConfig or MIME document before Karpenter’s NodeConfig', () => {
    const shell = parts(
      userDataFor('AL2023', { ...input, customUserData: '#!/bin/bash\necho hi' }),
    );
    expect(shell.map((x) => x.type)).toEqual([
      'text/x-shellscript; charset="us-ascii"',
      'application/node.eks.aws',
    ]);
    expect(shell[0]!.body).toBe('#!/bin/bash\necho hi');
    const nodeConfig =
      'apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  kubelet:\n    config:\n      shutdownGracePeriod: 30s';
    expect(parts(userDataFor('AL2023', { ...input, customUserData: nodeConfig }))[0]).toEqual({
      type: 'application/node.eks.aws',
      body: nodeConfig,
    });
    const mime =
      'MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary="BOUNDARY"\n\n--BOUNDARY\nContent-Type: text/x-shellscript\n\necho one\n--BOUNDARY\nContent-Type: text/cloud-config\n\nruncmd: []\n--BOUNDARY--\n';
    const merged = parts(userDataFor('AL2023', { ...input, customUserData: mime }));
    expect(merged.map((x) => x.type)).toEqual([
      'text/x-shellscript',
      'text/cloud-config',
      'application/node.eks.aws',
    ]);
    expect(merged[0]!.body).toBe('echo one');
  });
});

describe('Bottlerocket (TOML)', () => {
  it('writes settings.kubernetes over the custom TOML and keeps the rest', () => {
    const custom =
      '[settings.kubernetes]\nmax-pods = 5\ncluster-name = "wrong"\n[settings.kubernetes.node-labels]\nextra = "yes"\n[settings.host-containers.admin]\nenabled = true\n';
    const doc = parseToml(userDataFor('Bottlerocket', { ...input, customUserData: custom })) as {
      settings: { kubernetes: Record<string, unknown>; 'host-containers': unknown };
    };
    expect(doc.settings.kubernetes).toMatchObject({
      'cluster-name': 'demo',
      'api-server': 'https://api.demo:443',
      'cluster-certificate': 'Q0E=',
      'cluster-dns-ip': '10.100.0.10',
      'max-pods': 29,
      'node-labels': { extra: 'yes', team: 'web', 'karpenter.sh/nodepool': 'default' },
      'node-taints': { dedicated: ['web:NoSchedule'] },
      'kube-reserved': { cpu: '70m', memory: '442Mi' },
    });
    expect(doc.settings['host-containers']).toEqual({ admin: { enabled: true } });
  });

  it('names spec.userData when the custom TOML does not parse', () => {
    expect(() => userDataFor('Bottlerocket', { ...input, customUserData: '[settings' })).toThrow(
      /spec\.userData: not valid TOML/,
    );
  });
});

describe('Custom', () => {
  it('is the custom user data unchanged', () => {
    expect(userDataFor('Custom', { ...input, customUserData: '#!/bin/sh\nmy-bootstrap' })).toBe(
      '#!/bin/sh\nmy-bootstrap',
    );
  });
});
