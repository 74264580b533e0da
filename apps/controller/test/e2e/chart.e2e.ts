/**
 * The Helm chart (deploy/charts/karpenter-ts) and the controller agree on the azure settings:
 * the real helm renders the chart with the complete ci/azure-values.yaml, and the controller's
 * own option parser and `readAzureSettings` run on the rendered Deployment's environment
 * (Secrets resolved as the kubelet would). They must accept it and give back the values put in.
 * Every required value, missing, fails `helm template` naming it (all missing ones in one failure);
 * the schema refuses unknown keys at every level the chart defines and declares exactly the values
 * values.yaml documents and the templates read; the container's resources reach the controller
 * through the downward API only when set; the chart sets no variable the controller does not read;
 * `helm install` works against the real API server of this suite.
 */
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { connect, type KubeConnection } from '@karpenter-ts/kube';
import { createAzureCredential } from '@karpenter-ts/provider-azure';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { parse } from 'yaml';
import { buildOptionsProgram, parseOptions } from '../../src/options/options.js';
import { readAzureSettings, type AzureSettings } from '../../src/providers/azure-settings.js';
import { readAwsSettings } from '../../src/providers/aws-settings.js';
import { MIN_MEMORY_LIMIT_MIB, MiB, oldSpaceForMemoryLimit } from '../../src/runtime/heap-limit.js';
import {
  containerEnvironment,
  containerOf,
  type DeploymentSpec,
  type EnvContext,
} from './container-env.js';
import {
  chartDir,
  findHelm,
  helmInstall,
  helmTemplate,
  helmUninstall,
  only,
  type Manifest,
} from './helm.js';

const run = promisify(execFile);

/** The chart's values as this suite sets them. */
interface Values {
  /** Values this interface does not name (upstream's, podDisruptionBudget, ...). */
  [value: string]: unknown;
  provider: string;
  clusterName?: string;
  serviceAccount?: { name?: string; create?: boolean; annotations?: Record<string, string> };
  controller?: Record<string, unknown> & { env?: { name: string; value: string }[] };
  nodeSelector?: Record<string, string>;
  azure?: Record<string, unknown> & {
    subscriptionId: string;
    location: string;
    nodeResourceGroup: string;
    vnetSubnetID: string;
    clusterEndpoint: string;
    kubeletBootstrapToken: { secretName: string; key: string };
    sshPublicKey: string;
    dnsServiceIP: string;
    nodeIdentities: string[];
    kubeletIdentityClientID: string;
    linuxAdminUsername: string;
    nodeImageVersion: string;
    nodeOSDiskEncryptionSetID: string;
    credential: Record<string, unknown> & { mode: string; clientID: string };
  };
}

/** The complete azure configuration the chart ships for its own checks. */
const azureValues = parse(readFileSync(`${chartDir}/ci/azure-values.yaml`, 'utf8')) as Values;
const azure = azureValues.azure as NonNullable<Values['azure']>;

/** The Secrets the values point at (the bootstrap token; a service principal's secret). */
const secrets: Record<string, Record<string, string>> = {
  'karpenter-bootstrap': { token: 'abcdef.0123456789abcdef' },
  'karpenter-sp': { clientSecret: 'service-principal-secret' },
};

/** What the AKS workload identity webhook injects into a pod labelled for it. */
const webhookEnv = {
  AZURE_CLIENT_ID: azure.credential.clientID,
  AZURE_TENANT_ID: '99999999-8888-7777-6666-555555555555',
  AZURE_FEDERATED_TOKEN_FILE: '/var/run/secrets/azure/tokens/azure-identity-token',
  AZURE_AUTHORITY_HOST: 'https://login.microsoftonline.com/',
};

/** A deep copy of `values` with `path` (dotted) set to `value`. */
function withValue(values: Values, path: string, value: unknown): Values {
  const copy = structuredClone(values);
  const keys = path.split('.');
  let node = copy as unknown as Record<string, unknown>;
  for (const k of keys.slice(0, -1)) node = (node[k] ??= {}) as Record<string, unknown>;
  node[keys.at(-1) as string] = value;
  return copy;
}

interface Rendered {
  readonly manifests: Manifest[];
  readonly deployment: DeploymentSpec;
  /** The names of the controller container's env, in order. */
  readonly names: string[];
  /** The environment the controller starts with (what the webhook adds not included). */
  readonly env: Record<string, string>;
  /** The pod template's labels. */
  readonly podLabels: Record<string, string>;
}

function resolve(deployment: DeploymentSpec, context: EnvContext): Omit<Rendered, 'manifests'> {
  const container = containerOf(deployment, 'controller');
  return {
    deployment,
    names: (container.env ?? []).map((e) => e.name),
    env: containerEnvironment(container, context),
    podLabels: deployment.spec.template.metadata.labels ?? {},
  };
}

let helm: string;

/** `helm template` of `values` in namespace `karpenter`; the Deployment's environment resolved. */
async function render(values: Values): Promise<Rendered> {
  const r = await helmTemplate(helm, values, { namespace: 'karpenter' });
  if (!r.ok) throw new Error(`helm template failed: ${r.error}`);
  const deployment = only(r.manifests, 'Deployment') as unknown as DeploymentSpec;
  const context: EnvContext = {
    namespace: 'karpenter',
    secret: (name, key) => secrets[name]?.[key],
  };
  return { manifests: r.manifests, ...resolve(deployment, context) };
}

/** The environment the process sees: the container's, plus the webhook's when the pod asks for it. */
function processEnv(r: Pick<Rendered, 'env' | 'podLabels'>): Record<string, string> {
  const injected = r.podLabels['azure.workload.identity/use'] === 'true' ? webhookEnv : {};
  return { ...r.env, ...injected };
}

/** What the controller does with its environment at start: options, then the azure settings. */
function startController(env: Record<string, string>) {
  const parsed = parseOptions([], env);
  if (parsed.kind !== 'run') throw new Error(`the options parser refused: ${parsed.output}`);
  return { options: parsed.options, settings: readAzureSettings(env) };
}

/**
 * The variables the controller reads from `env`: every option's variable, and those that
 * `readAzureSettings` and the credential it selects actually look up (recorded through a proxy).
 */
function variablesTheControllerReads(env: Record<string, string>): Set<string> {
  const read = new Set(
    buildOptionsProgram('0')
      .options.map((o) => o.envVar)
      .filter((n): n is string => n !== undefined),
  );
  const tracked = new Proxy(env, {
    get(target, key, receiver) {
      if (typeof key === 'string') read.add(key);
      return Reflect.get(target, key, receiver) as unknown;
    },
  }) as NodeJS.ProcessEnv;
  const settings = readAzureSettings(tracked);
  // @azure/identity reads process.env itself; give it the same recorded environment.
  const saved = process.env;
  process.env = tracked;
  try {
    createAzureCredential(settings.credential);
  } finally {
    process.env = saved;
  }
  return read;
}

/** Variables the chart sets that the controller never reads (typos, stale names). */
function unreadVariables(r: Rendered): string[] {
  const read = variablesTheControllerReads(processEnv(r));
  return r.names.filter((n) => !read.has(n));
}

/** The settings the ci values must give (credential: workload identity). */
const expectedSettings: AzureSettings = {
  subscriptionId: azure.subscriptionId,
  location: azure.location,
  nodeResourceGroup: azure.nodeResourceGroup,
  vnetSubnetID: azure.vnetSubnetID,
  clusterEndpoint: azure.clusterEndpoint,
  kubeletBootstrapToken: 'abcdef.0123456789abcdef',
  sshPublicKey: azure.sshPublicKey,
  dnsServiceIP: azure.dnsServiceIP,
  nodeIdentities: azure.nodeIdentities,
  kubeletIdentityClientID: azure.kubeletIdentityClientID,
  networkPlugin: 'azure',
  networkPluginMode: 'overlay',
  vmMemoryOverheadPercent: 0.075,
  adminUsername: azure.linuxAdminUsername,
  nodeImageVersion: azure.nodeImageVersion,
  diskEncryptionSetID: azure.nodeOSDiskEncryptionSetID,
  credential: { mode: 'workload-identity' },
};

/** Values the chart requires for provider azure, and the variable each feeds. */
const requiredValues: readonly [path: string, variable: string | undefined][] = [
  ['clusterName', 'CLUSTER_NAME'],
  ['azure.subscriptionId', 'AZURE_SUBSCRIPTION_ID'],
  ['azure.location', 'AZURE_LOCATION'],
  ['azure.nodeResourceGroup', 'AZURE_NODE_RESOURCE_GROUP'],
  ['azure.vnetSubnetID', 'VNET_SUBNET_ID'],
  ['azure.clusterEndpoint', 'CLUSTER_ENDPOINT'],
  ['azure.kubeletBootstrapToken.secretName', 'KUBELET_BOOTSTRAP_TOKEN'],
  ['azure.kubeletBootstrapToken.key', 'KUBELET_BOOTSTRAP_TOKEN'],
  ['azure.sshPublicKey', 'SSH_PUBLIC_KEY'],
  // Not a variable: the service account annotation the workload identity webhook reads.
  ['azure.credential.clientID', undefined],
];

const servicePrincipal = {
  mode: 'environment',
  clientID: '12121212-3434-5656-7878-909090909090',
  tenantID: '99999999-8888-7777-6666-555555555555',
  clientSecret: { secretName: 'karpenter-sp', key: 'clientSecret' },
};

beforeAll(() => {
  helm = findHelm();
});

describe('Helm chart, provider azure: rendered by helm, read by the controller', () => {
  it('renders an environment from which the controller reads back every value put in', async () => {
    const r = await render(azureValues);
    const { options, settings } = startController(processEnv(r));
    expect(settings).toEqual(expectedSettings);
    expect(options).toMatchObject({
      provider: 'azure',
      clusterName: azureValues.clusterName,
      leaderElectionNamespace: 'karpenter',
      // controller.resources: 1 cpu and 1Gi, through the downward API.
      cpuRequests: 1000,
      memoryLimit: 1024 ** 3,
      logLevel: 'info',
      batchMaxDuration: 10,
      batchIdleDuration: 1,
    });
  });

  it('takes the bootstrap token from the Secret by reference, never as a value', async () => {
    const r = await render(azureValues);
    const container = containerOf(r.deployment, 'controller');
    expect(container.env?.find((e) => e.name === 'KUBELET_BOOTSTRAP_TOKEN')).toEqual({
      name: 'KUBELET_BOOTSTRAP_TOKEN',
      valueFrom: { secretKeyRef: { name: 'karpenter-bootstrap', key: 'token' } },
    });
    const text = JSON.stringify(r.manifests);
    expect(text).not.toContain(secrets['karpenter-bootstrap']?.['token']);
  });

  it('refuses a bootstrap token given as a plain value (schema: a Secret reference)', async () => {
    const r = await helmTemplate(
      helm,
      withValue(azureValues, 'azure.kubeletBootstrapToken', 'abcdef.0123456789abcdef'),
    );
    expect(r.ok).toBe(false);
    expect(r.ok ? '' : r.error).toMatch(/azure\/kubeletBootstrapToken.*want object/);
  });

  it('refuses an unknown azure value, such as the old subscriptionID spelling', async () => {
    const r = await helmTemplate(helm, withValue(azureValues, 'azure.subscriptionID', 'x'));
    expect(r.ok ? '' : r.error).toMatch(/additional properties 'subscriptionID' not allowed/);
  });

  it('marks the service account and the pod for AKS workload identity', async () => {
    const r = await render(azureValues);
    const sa = only(r.manifests, 'ServiceAccount');
    expect(sa.metadata.name).toBe('karpenter');
    expect(sa.metadata.annotations).toEqual({
      'azure.workload.identity/client-id': azure.credential.clientID,
    });
    expect(r.podLabels['azure.workload.identity/use']).toBe('true');
    expect(r.deployment.spec.template.spec.serviceAccountName).toBe('karpenter');
    // Without the webhook's variables the workload identity credential cannot be built.
    expect(() => createAzureCredential(startController(r.env).settings.credential)).toThrow(
      /AZURE_CLIENT_ID, AZURE_TENANT_ID and AZURE_FEDERATED_TOKEN_FILE/,
    );
  });

  it('passes a managed identity client ID, and no workload identity marks', async () => {
    const values = withValue(azureValues, 'azure.credential', {
      mode: 'managed-identity',
      clientID: '13131313-2424-3535-4646-575757575757',
    });
    const r = await render(values);
    expect(startController(processEnv(r)).settings.credential).toEqual({
      mode: 'managed-identity',
      clientId: '13131313-2424-3535-4646-575757575757',
    });
    expect(r.podLabels['azure.workload.identity/use']).toBeUndefined();
    expect(only(r.manifests, 'ServiceAccount').metadata.annotations).toBeUndefined();
    expect(unreadVariables(r)).toEqual([]);
  });

  it('passes a service principal with its secret from a Secret (credential mode environment)', async () => {
    const r = await render(withValue(azureValues, 'azure.credential', servicePrincipal));
    expect(startController(processEnv(r)).settings.credential).toEqual({ mode: 'environment' });
    expect(r.env).toMatchObject({
      AZURE_CLIENT_ID: servicePrincipal.clientID,
      AZURE_TENANT_ID: servicePrincipal.tenantID,
      AZURE_CLIENT_SECRET: 'service-principal-secret',
    });
    // @azure/identity's EnvironmentCredential reads these three, so none is unread.
    expect(unreadVariables(r)).toEqual([]);
  });

  it('passes an empty network plugin mode (pods on the node subnet) and a system namespace', async () => {
    let values = withValue(azureValues, 'azure.networkPluginMode', '');
    values = withValue(values, 'azure.systemNamespace', 'kube-system');
    values = withValue(values, 'azure.nodeIdentities', []);
    const r = await render(values);
    const { settings } = startController(processEnv(r));
    expect(settings).toMatchObject({ networkPluginMode: '', systemNamespace: 'kube-system' });
    expect(settings.nodeIdentities).toEqual([]);
    expect(r.names).not.toContain('NODE_IDENTITIES');
    // The maintenance window ConfigMap is read there, so that is where the chart grants it.
    const roles = r.manifests.filter(
      (m) => m.kind === 'Role' && JSON.stringify(m).includes('configmaps'),
    );
    expect(roles.map((m) => m.metadata.namespace)).toEqual(['kube-system']);
  });

  it('leaves optional settings out when empty, so the controller defaults apply', async () => {
    let values = azureValues;
    for (const key of [
      'dnsServiceIP',
      'kubeletIdentityClientID',
      'linuxAdminUsername',
      'nodeImageVersion',
      'nodeOSDiskEncryptionSetID',
    ])
      values = withValue(values, `azure.${key}`, '');
    const r = await render(values);
    const { settings } = startController(processEnv(r));
    for (const field of [
      'dnsServiceIP',
      'kubeletIdentityClientID',
      'adminUsername',
      'nodeImageVersion',
      'diskEncryptionSetID',
    ])
      expect(settings).not.toHaveProperty(field);
    expect(r.names).not.toContain('NODE_OSDISK_DISKENCRYPTIONSET_ID');
  });

  it('sets no environment variable the controller does not read', async () => {
    const r = await render(azureValues);
    expect(r.names.length).toBeGreaterThan(20);
    expect(unreadVariables(r)).toEqual([]);
  });

  it('would catch a variable nothing reads, such as the ARM_SUBSCRIPTION_ID it used to set', async () => {
    const values = withValue(azureValues, 'controller.env', [
      { name: 'ARM_SUBSCRIPTION_ID', value: azure.subscriptionId },
    ]);
    expect(unreadVariables(await render(values))).toEqual(['ARM_SUBSCRIPTION_ID']);
  });

  it('fails helm template naming each required value that is missing', async () => {
    const failures: Record<string, string> = {};
    for (const [path] of requiredValues) {
      const r = await helmTemplate(helm, withValue(azureValues, path, ''));
      failures[path] = r.ok ? 'rendered' : r.error;
    }
    for (const [path] of requiredValues) expect(failures[path]).toContain(`${path} is required`);
  });

  it('fails naming each service principal value that is missing (credential mode environment)', async () => {
    const values = withValue(azureValues, 'azure.credential', servicePrincipal);
    for (const path of [
      'azure.credential.clientID',
      'azure.credential.tenantID',
      'azure.credential.clientSecret.secretName',
      'azure.credential.clientSecret.key',
    ]) {
      const r = await helmTemplate(helm, withValue(values, path, ''));
      expect(r.ok ? 'rendered' : r.error).toContain(`${path} is required`);
    }
  });

  it('names every missing required value in one failure, each by its full path', async () => {
    let values = azureValues;
    for (const [path] of requiredValues) values = withValue(values, path, '');
    const r = await helmTemplate(helm, values);
    const error = r.ok ? 'rendered' : r.error;
    for (const [path] of requiredValues) expect(error).toContain(`${path} is required`);
    // One failure: helm reports a single error, the list.
    expect(error.match(/^Error:/gm)).toHaveLength(1);
  });

  it('names every missing service principal value in the same failure (credential mode environment)', async () => {
    let values = withValue(azureValues, 'azure.credential', {
      mode: 'environment',
      clientSecret: { secretName: '', key: '' },
    });
    values = withValue(values, 'clusterName', '');
    const r = await helmTemplate(helm, values);
    for (const path of [
      'clusterName',
      'azure.credential.clientID',
      'azure.credential.tenantID',
      'azure.credential.clientSecret.secretName',
      'azure.credential.clientSecret.key',
    ])
      expect(r.ok ? 'rendered' : r.error).toContain(`${path} is required`);
  });

  it('requires exactly the variables the controller cannot start without', async () => {
    const r = await render(azureValues);
    const env = processEnv(r);
    const needed = r.names.filter((name) => {
      const without = { ...env };
      delete without[name];
      try {
        startController(without);
        return false;
      } catch {
        return true;
      }
    });
    const chartRequired = requiredValues.flatMap(([, v]) => (v ? [v] : []));
    expect(new Set(needed)).toEqual(new Set(chartRequired));
  });

  it('renders the values file docs/azure-deploy.md shows into settings the controller accepts', async () => {
    const docs = readFileSync(
      new URL('../../../../docs/azure-deploy.md', import.meta.url).pathname,
      'utf8',
    );
    const block = /^## Install with Helm$[\s\S]*?^```yaml\n([\s\S]*?)^```$/m.exec(docs)?.[1];
    expect(block, 'a yaml block under "## Install with Helm"').toBeDefined();
    const values = parse(block ?? '') as Values;
    const shown = values.azure as NonNullable<Values['azure']>;
    const r = await render(values);
    const { options, settings } = startController(processEnv(r));
    expect(options).toMatchObject({ provider: 'azure', clusterName: values.clusterName });
    expect(settings).toEqual({
      subscriptionId: shown.subscriptionId,
      location: shown.location,
      nodeResourceGroup: shown.nodeResourceGroup,
      vnetSubnetID: shown.vnetSubnetID,
      clusterEndpoint: shown.clusterEndpoint,
      kubeletBootstrapToken: 'abcdef.0123456789abcdef',
      sshPublicKey: shown.sshPublicKey,
      dnsServiceIP: shown.dnsServiceIP,
      nodeIdentities: shown.nodeIdentities,
      kubeletIdentityClientID: shown.kubeletIdentityClientID,
      networkPlugin: 'azure',
      networkPluginMode: 'overlay',
      vmMemoryOverheadPercent: 0.075,
      credential: { mode: 'workload-identity' },
    });
    expect(unreadVariables(r)).toEqual([]);
  });
});

describe('Helm chart, providers sim and aws', () => {
  it('renders sim with no azure settings and no workload identity marks', async () => {
    const r = await render({ provider: 'sim' });
    expect(r.names.filter((n) => /AZURE|ARM_|VNET|KUBELET|SSH|NETWORK_PLUGIN/.test(n))).toEqual([]);
    expect(r.podLabels['azure.workload.identity/use']).toBeUndefined();
    expect(parseOptions([], r.env)).toMatchObject({ kind: 'run', options: { provider: 'sim' } });
  });

  it('renders aws with its cluster name and options the parser accepts', async () => {
    const r = await render(awsValues);
    expect(parseOptions([], r.env)).toMatchObject({
      kind: 'run',
      options: { provider: 'aws', clusterName: awsValues.clusterName },
    });
  });

  it('passes helm lint --strict and renders every provider (deploy/scripts/lint-chart.sh)', async () => {
    const script = new URL('../../../../deploy/scripts/lint-chart.sh', import.meta.url).pathname;
    const { stdout } = await run('bash', [script], { env: { ...process.env, HELM: helm } });
    expect(stdout).toContain('lint-chart: ok');
  });
});

/** The complete aws configuration the chart ships for its own checks. */
const awsValues = parse(readFileSync(`${chartDir}/ci/aws-values.yaml`, 'utf8')) as Values;
const awsShipped = awsValues['aws'] as {
  region: string;
  clusterEndpoint: string;
  clusterCABundle: string;
  credential: { mode: string; roleArn: string };
};

/** Values the chart requires for provider aws (IRSA), and the variable each feeds. */
const awsRequiredValues: [string, string | undefined][] = [
  ['clusterName', 'CLUSTER_NAME'],
  ['aws.region', 'AWS_REGION'],
  ['aws.clusterEndpoint', 'CLUSTER_ENDPOINT'],
  // The service account annotation, not a variable.
  ['aws.credential.roleArn', undefined],
];

/** The options, then readAwsSettings, over the rendered environment, recording what they read. */
function startAwsController(env: Record<string, string>) {
  const read = new Set(
    buildOptionsProgram('0')
      .options.map((o) => o.envVar)
      .filter((n): n is string => n !== undefined),
  );
  const tracked = new Proxy(env, {
    get(target, key, receiver) {
      if (typeof key === 'string') read.add(key);
      return Reflect.get(target, key, receiver) as unknown;
    },
  }) as NodeJS.ProcessEnv;
  const parsed = parseOptions([], env);
  if (parsed.kind !== 'run') throw new Error(`the options parser refused: ${parsed.output}`);
  const settings = readAwsSettings(tracked, {
    interruptionQueue: parsed.options.interruptionQueue,
  });
  return { options: parsed.options, settings, read };
}

describe('Helm chart, provider aws: rendered by helm, read by the controller', () => {
  it('renders an environment from which the controller reads back every value put in, and nothing it does not read', async () => {
    const r = await render(awsValues);
    const { options, settings, read } = startAwsController(r.env);
    expect(options).toMatchObject({ provider: 'aws', clusterName: awsValues.clusterName });
    expect(settings).toEqual({
      region: awsShipped.region,
      clusterEndpoint: awsShipped.clusterEndpoint,
      clusterCABundle: awsShipped.clusterCABundle,
      vmMemoryOverheadPercent: 0.075,
      reservedENIs: 1,
      interruptionQueue: 'my-eks',
    });
    expect(r.names.filter((n) => !read.has(n))).toEqual([]);
    expect(r.names.filter((n) => /AZURE|ARM_|VNET|SSH/.test(n))).toEqual([]);
  });

  it('annotates the service account with the IRSA role, and nothing for Pod Identity', async () => {
    const irsa = only((await render(awsValues)).manifests, 'ServiceAccount');
    expect(irsa.metadata.annotations).toEqual({
      'eks.amazonaws.com/role-arn': awsShipped.credential.roleArn,
    });
    const podIdentity = await render(
      withValue(awsValues, 'aws.credential', { mode: 'pod-identity', roleArn: '' }),
    );
    expect(only(podIdentity.manifests, 'ServiceAccount').metadata.annotations).toBeUndefined();
    expect(startAwsController(podIdentity.env).settings.region).toBe(awsShipped.region);
  });

  it('refuses a role ARN that is not one, and an unknown aws value', async () => {
    const bad = await helmTemplate(
      helm,
      withValue(awsValues, 'aws.credential.roleArn', 'Karpenter'),
    );
    expect(bad.ok ? '' : bad.error).toMatch(/aws\/credential\/roleArn/);
    const typo = await helmTemplate(helm, withValue(awsValues, 'aws.interruptionQueueName', 'q'));
    expect(typo.ok ? '' : typo.error).toContain(
      "additional properties 'interruptionQueueName' not allowed",
    );
  });

  it('leaves optional settings out when empty, so the controller defaults apply', async () => {
    let values = withValue(awsValues, 'aws.clusterCABundle', '');
    values = withValue(values, 'aws.vmMemoryOverheadPercent', null);
    values = withValue(values, 'aws.reservedENIs', '');
    values = withValue(values, 'aws.interruptionQueue', '');
    const r = await render(values);
    for (const name of [
      'CLUSTER_CA_BUNDLE',
      'VM_MEMORY_OVERHEAD_PERCENT',
      'RESERVED_ENIS',
      'INTERRUPTION_QUEUE',
    ])
      expect(r.names).not.toContain(name);
    const { settings } = startAwsController(r.env);
    expect(Object.keys(settings).sort()).toEqual(['clusterEndpoint', 'region']);
  });

  it('names every missing required value in one failure, and requires exactly the variables the controller cannot start without', async () => {
    let values = awsValues;
    for (const [path] of awsRequiredValues) values = withValue(values, path, '');
    const r = await helmTemplate(helm, values);
    const error = r.ok ? 'rendered' : r.error;
    for (const [path] of awsRequiredValues) expect(error).toContain(`${path} is required`);
    expect(error.match(/^Error:/gm)).toHaveLength(1);
    expect(error).toContain('docs/aws-deploy.md');

    const rendered = await render(awsValues);
    const needed = rendered.names.filter((name) => {
      const without = { ...rendered.env };
      delete without[name];
      try {
        startAwsController(without);
        return false;
      } catch {
        return true;
      }
    });
    // And PROVIDER: without it the controller runs as sim and refuses the aws-only
    // --interruption-queue (INTERRUPTION_QUEUE).
    const chartRequired = ['PROVIDER', ...awsRequiredValues.flatMap(([, v]) => (v ? [v] : []))];
    expect(new Set(needed)).toEqual(new Set(chartRequired));
  });

  it('renders the values file docs/aws-deploy.md shows into settings the controller accepts', async () => {
    const docs = readFileSync(
      new URL('../../../../docs/aws-deploy.md', import.meta.url).pathname,
      'utf8',
    );
    const block = /^## Install with Helm$[\s\S]*?^```yaml\n([\s\S]*?)^```$/m.exec(docs)?.[1];
    expect(block, 'a yaml block under "## Install with Helm"').toBeDefined();
    const values = parse(block ?? '') as Values;
    const shown = values['aws'] as typeof awsShipped;
    const r = await render(values);
    const { options, settings, read } = startAwsController(r.env);
    expect(options).toMatchObject({ provider: 'aws', clusterName: values.clusterName });
    expect(settings).toMatchObject({
      region: shown.region,
      clusterEndpoint: shown.clusterEndpoint,
    });
    expect(r.names.filter((n) => !read.has(n))).toEqual([]);
    expect(only(r.manifests, 'ServiceAccount').metadata.annotations).toEqual({
      'eks.amazonaws.com/role-arn': shown.credential.roleArn,
    });
  });
});

/** Values whose keys the schema leaves open on purpose: Kubernetes maps, and helm's `global`. */
const freeFormValues = new Set([
  'global',
  'additionalLabels',
  'podSecurityContext',
  'strategy',
  'serviceAccount.annotations',
  'controller.resources',
  'podAnnotations',
  'podLabels',
  'nodeSelector',
  'affinity',
]);

const isMap = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The chart's default values (values.yaml). */
const defaultValues = parse(readFileSync(`${chartDir}/values.yaml`, 'utf8')) as Record<
  string,
  unknown
>;

/** values.schema.json, as far as these tests read it. */
interface SchemaNode {
  $ref?: string;
  type?: string;
  enum?: unknown[];
  properties?: Record<string, SchemaNode>;
  additionalProperties?: boolean | SchemaNode;
  definitions?: Record<string, SchemaNode>;
}
const schema = JSON.parse(readFileSync(`${chartDir}/values.schema.json`, 'utf8')) as SchemaNode;

/** A schema node with its `#/definitions/...` reference followed. */
function deref(node: SchemaNode): SchemaNode {
  if (node.$ref === undefined) return node;
  const name = node.$ref.replace('#/definitions/', '');
  const target = schema.definitions?.[name];
  if (target === undefined) throw new Error(`values.schema.json: no definition ${node.$ref}`);
  return target;
}

/** The schema node of a dotted values path. */
function schemaAt(path: string): SchemaNode {
  let node = deref(schema);
  for (const key of path.split('.')) {
    const next = node.properties?.[key];
    if (next === undefined) throw new Error(`values.schema.json has no ${path}`);
    node = deref(next);
  }
  return node;
}

/** Dotted paths of the leaves of a values tree: scalars, lists, and free-form maps. */
function valueLeaves(values: Record<string, unknown>, prefix = ''): string[] {
  return Object.entries(values).flatMap(([key, v]) => {
    const path = prefix + key;
    return isMap(v) && !freeFormValues.has(path) ? valueLeaves(v, `${path}.`) : [path];
  });
}

/** Dotted paths of the objects of a values tree whose keys the chart defines ('' = top level). */
function definedObjects(values: Record<string, unknown>, prefix = ''): string[] {
  const here = prefix === '' ? '' : prefix.slice(0, -1);
  return [
    here,
    ...Object.entries(values).flatMap(([key, v]) =>
      isMap(v) && !freeFormValues.has(prefix + key) ? definedObjects(v, `${prefix}${key}.`) : [],
    ),
  ];
}

/** Dotted paths of the schema's leaves: strict objects (no additional properties) are walked into. */
function schemaLeaves(node: SchemaNode, prefix = ''): string[] {
  const n = deref(node);
  if (n.properties === undefined || n.additionalProperties !== false) return [prefix.slice(0, -1)];
  return Object.entries(n.properties).flatMap(([key, child]) =>
    schemaLeaves(child, `${prefix}${key}.`),
  );
}

/**
 * Every values path the templates read, dotted: `.Values.a.b`, `$.Values.a.b`, and through a
 * variable bound to a values path (`$a := .Values.azure` makes `$a.location` read azure.location).
 * @throws Error naming a `$var.field` whose variable is not bound to a values path.
 */
function templateValuePaths(): Set<string> {
  const dir = `${chartDir}/templates`;
  const text = readdirSync(dir)
    .map((f) => readFileSync(`${dir}/${f}`, 'utf8'))
    .join('\n');
  const bound = new Map<string, string>();
  const resolve = (variable: string | undefined, fields: string): string => {
    const base = variable === undefined ? '' : bound.get(variable);
    if (base === undefined)
      throw new Error(`templates: $${variable}${fields} is not a values path`);
    return [base, fields.slice(1)].filter((p) => p !== '').join('.');
  };
  for (const m of text.matchAll(
    /\$(\w+)\s*:=\s*(?:\$?\.Values((?:\.\w+)*)|\$(\w+)((?:\.\w+)*))/g,
  )) {
    const [, name, direct, variable, fields] = m;
    if (direct !== undefined) bound.set(name as string, resolve(undefined, direct));
    else if (bound.has(variable as string))
      bound.set(name as string, resolve(variable, fields ?? ''));
  }
  const read = new Set<string>();
  for (const m of text.matchAll(/\$?\.Values((?:\.\w+)+)/g))
    read.add(resolve(undefined, m[1] as string));
  for (const m of text.matchAll(/\$(\w+)((?:\.\w+)+)/g)) {
    const [, variable, fields] = m;
    // Variables holding other things (strings, lists, dicts built in the template) are skipped.
    if (bound.has(variable as string)) read.add(resolve(variable, fields as string));
  }
  return read;
}

describe('Helm chart values: the schema refuses what the chart would ignore', () => {
  it('refuses a misspelt top-level value, naming it (clustername for clusterName)', async () => {
    const r = await helmTemplate(helm, { ...azureValues, clustername: 'my-aks' });
    expect(r.ok ? 'rendered' : r.error).toMatch(/additional properties 'clustername' not allowed/);
  });

  it('refuses a misspelt section and a misspelt key inside one (controler, controller.resource)', async () => {
    const r = await helmTemplate(helm, {
      provider: 'sim',
      controler: { resources: {} },
      controller: { resource: { limits: { memory: '2Gi' } } },
    });
    const error = r.ok ? 'rendered' : r.error;
    expect(error).toMatch(/at '': additional properties 'controler' not allowed/);
    expect(error).toMatch(/at '\/controller': additional properties 'resource' not allowed/);
  });

  it('refuses an unknown key at every object level of values.yaml, naming where', async () => {
    const levels = definedObjects(defaultValues);
    expect(levels).toEqual(
      expect.arrayContaining(['', 'controller', 'azure.credential.clientSecret']),
    );
    let values: Values = { provider: 'sim' };
    for (const level of levels)
      values = withValue(values, level === '' ? 'notAValue' : `${level}.notAValue`, 'x');
    const r = await helmTemplate(helm, values);
    const error = r.ok ? 'rendered' : r.error;
    for (const level of levels) {
      const pointer = level === '' ? '' : `/${level.replaceAll('.', '/')}`;
      expect(error).toContain(`at '${pointer}': additional properties 'notAValue' not allowed`);
    }
  });

  it('keeps the Kubernetes-typed maps open (podAnnotations, nodeSelector, affinity, resources, ...)', async () => {
    let values: Values = { provider: 'sim' };
    for (const path of freeFormValues) values = withValue(values, `${path}.anyKey`, 'x');
    const r = await helmTemplate(helm, values);
    expect(r.ok ? '' : r.error).toBe('');
  });

  it('declares exactly the values values.yaml documents, and the templates read each one', () => {
    const documented = valueLeaves(defaultValues).sort();
    expect(schemaLeaves(schema).sort()).toEqual([...documented, 'global'].sort());
    const read = templateValuePaths();
    // Read values are documented (a documented map may be read whole), and no value is dead.
    const known = new Set([...documented, ...definedObjects(defaultValues)]);
    expect([...read].filter((p) => !known.has(p))).toEqual([]);
    expect(documented.filter((p) => !read.has(p))).toEqual([]);
  });

  it('allows in its enums exactly the choices of the controller option each value feeds', () => {
    const choices = (envVar: string): unknown[] => {
      const o = buildOptionsProgram('0').options.find((x) => x.envVar === envVar);
      return [...(o?.argChoices ?? [])];
    };
    expect(schemaAt('provider').enum).toEqual(choices('PROVIDER'));
    expect(schemaAt('logLevel').enum).toEqual(choices('LOG_LEVEL'));
    // An empty controller setting leaves the controller's default.
    expect(schemaAt('controller.preferencePolicy').enum).toEqual([
      ...choices('PREFERENCE_POLICY'),
      '',
    ]);
    expect(schemaAt('controller.minValuesPolicy').enum).toEqual([
      ...choices('MIN_VALUES_POLICY'),
      '',
    ]);
  });
});

describe('Helm chart, controller settings and resources', () => {
  it('passes MEMORY_LIMIT and CPU_REQUESTS from the controller container only when its resources set them', async () => {
    // null drops the chart's default resources (an empty map would merge with them).
    const r = await render({ provider: 'sim', controller: { resources: null } });
    expect(r.names).not.toContain('MEMORY_LIMIT');
    expect(r.names).not.toContain('CPU_REQUESTS');
    // The controller's defaults: no memory limit, one core.
    expect(parseOptions([], r.env)).toMatchObject({
      kind: 'run',
      options: { memoryLimit: -1, cpuRequests: 1000 },
    });
  });

  it('passes a fractional cpu request in millicores and a memory limit in bytes', async () => {
    const resources = { requests: { cpu: '250m', memory: '512Mi' }, limits: { memory: '1536Mi' } };
    const r = await render({ provider: 'sim', controller: { resources } });
    expect(parseOptions([], r.env)).toMatchObject({
      kind: 'run',
      options: { cpuRequests: 250, memoryLimit: 1536 * 1024 ** 2 },
    });
    // The references name the container they are in (the downward API resolves that one).
    const container = containerOf(r.deployment, 'controller');
    const refs = (container.env ?? []).flatMap((e) => e.valueFrom?.resourceFieldRef ?? []);
    expect(refs.map((ref) => [ref.containerName, ref.resource])).toEqual([
      ['controller', 'limits.memory'],
      ['controller', 'requests.cpu'],
    ]);
  });

  it('passes a cpu request without a memory limit, and a memory limit without a cpu request', async () => {
    const cpuOnly = await render({
      provider: 'sim',
      controller: { resources: { requests: { cpu: '2' }, limits: null } },
    });
    expect(cpuOnly.names.filter((n) => /MEMORY_LIMIT|CPU_REQUESTS/.test(n))).toEqual([
      'CPU_REQUESTS',
    ]);
    expect(cpuOnly.env['CPU_REQUESTS']).toBe('2000');
    const memoryOnly = await render({
      provider: 'sim',
      controller: { resources: { requests: null, limits: { memory: '2Gi' } } },
    });
    expect(memoryOnly.names.filter((n) => /MEMORY_LIMIT|CPU_REQUESTS/.test(n))).toEqual([
      'MEMORY_LIMIT',
    ]);
    expect(memoryOnly.env['MEMORY_LIMIT']).toBe(String(2 * 1024 ** 3));
  });

  it('fails helm template for a memory limit under the controller floor, in every quantity form', async () => {
    const floor = MIN_MEMORY_LIMIT_MIB * MiB;
    // [limits.memory, bytes Kubernetes gives the controller (rounded up to whole bytes)]
    const forms: [quantity: string | number, bytes: number][] = [
      ['256Mi', 256 * MiB],
      ['300M', 300e6],
      [String(floor - 1), floor - 1],
      [String(floor), floor],
      [floor - 1, floor - 1],
      [floor, floor],
      [`${MIN_MEMORY_LIMIT_MIB - 1}Mi`, floor - MiB],
      [`${MIN_MEMORY_LIMIT_MIB}Mi`, floor],
      [`${MIN_MEMORY_LIMIT_MIB * 1024 - 1}Ki`, floor - 1024],
      [`${MIN_MEMORY_LIMIT_MIB * 1024}Ki`, floor],
      ['354418k', 354418000],
      ['354419k', 354419000],
      ['0.33Gi', Math.ceil(0.33 * 1024 ** 3)],
      ['0.34Gi', Math.ceil(0.34 * 1024 ** 3)],
      ['.35G', 350e6],
      ['0.36G', 360e6],
      ['3.5e8', 350e6],
      ['3.6E8', 360e6],
      ['+1e9', 1e9],
      ['1Gi', 1024 ** 3],
      ['1T', 1e12],
      ['1Ti', 1024 ** 4],
      ['1P', 1e15],
      ['1Pi', 1024 ** 5],
      ['1E', 1e18],
      ['1Ei', 1024 ** 6],
      ['400000000000m', 400e6],
      ['300000000000m', 300e6],
      ['354418688000000u', floor],
      ['300000000000000000n', 300e6],
      ['400000000000000000n', 400e6],
    ];
    const results = await Promise.all(
      forms.map(([memory]) =>
        helmTemplate(helm, {
          provider: 'sim',
          controller: { resources: { limits: { memory } } },
        }),
      ),
    );
    forms.forEach(([memory, bytes], i) => {
      const r = results[i] as Awaited<ReturnType<typeof helmTemplate>>;
      const runs = oldSpaceForMemoryLimit(bytes) !== undefined;
      const label = `limits.memory ${String(memory)}`;
      if (runs) expect(r.ok ? '' : r.error, label).toBe('');
      else {
        expect(r.ok ? 'rendered' : r.error, label).toContain(
          `- controller.resources.limits.memory ${String(memory)} is under the controller's minimum of ${MIN_MEMORY_LIMIT_MIB}Mi (${floor} bytes)`,
        );
      }
    });
  });

  it('reports a too small memory limit with the missing required values, in one failure', async () => {
    const r = await helmTemplate(helm, {
      provider: 'azure',
      controller: { resources: { limits: { memory: '256Mi' } } },
    });
    const error = r.ok ? 'rendered' : r.error;
    expect(error).toContain('- clusterName is required for provider azure');
    expect(error).toContain('- azure.subscriptionId is required');
    expect(error).toContain('- controller.resources.limits.memory 256Mi is under');
    expect(error.match(/^Error:/gm)).toHaveLength(1);
  });

  it('lets through a memory limit the chart cannot read, for the API server to judge', async () => {
    const r = await helmTemplate(helm, {
      provider: 'sim',
      controller: { resources: { limits: { memory: '1e400' } } },
    });
    expect(r.ok ? '' : r.error).toBe('');
  });

  it('leaves out controller settings set empty, so the controller defaults apply', async () => {
    const r = await render({
      provider: 'sim',
      controller: {
        batchMaxDuration: '',
        batchIdleDuration: '',
        preferencePolicy: '',
        minValuesPolicy: '',
        featureGates: '',
      },
    });
    expect(parseOptions([], r.env)).toMatchObject({
      kind: 'run',
      options: {
        batchMaxDuration: 10,
        batchIdleDuration: 1,
        preferencePolicy: 'Respect',
        minValuesPolicy: 'Strict',
      },
    });
  });
});

describe('Helm chart, PodDisruptionBudget', () => {
  it('renders a PodDisruptionBudget of maxUnavailable 1 over the controller pods by default', async () => {
    const r = await render({ provider: 'sim' });
    const pdb = only(r.manifests, 'PodDisruptionBudget');
    expect(pdb.spec).toEqual({
      maxUnavailable: 1,
      selector: {
        matchLabels: {
          'app.kubernetes.io/name': 'karpenter-ts',
          'app.kubernetes.io/instance': 'karpenter-ts',
        },
      },
    });
  });

  it('renders no PodDisruptionBudget for podDisruptionBudget null (as deploy/README says null removes a value)', async () => {
    const r = await render({ provider: 'sim', podDisruptionBudget: null });
    expect(r.manifests.filter((m) => m.kind === 'PodDisruptionBudget')).toEqual([]);
  });
});

/** Values of upstream Karpenter's chart that map to a Deployment or PDB field, as a team carries them. */
const upstreamValues = {
  additionalLabels: { team: 'platform' },
  podSecurityContext: { fsGroup: 65536 },
  topologySpreadConstraints: [
    { maxSkew: 1, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'ScheduleAnyway' },
  ],
  extraVolumes: [
    {
      name: 'token',
      projected: {
        sources: [{ serviceAccountToken: { audience: 'sts.example.com', path: 'token' } }],
      },
    },
  ],
  strategy: { rollingUpdate: { maxUnavailable: 0, maxSurge: 1 } },
  revisionHistoryLimit: 3,
  hostNetwork: true,
  dnsPolicy: 'ClusterFirstWithHostNet',
  podDisruptionBudget: { minAvailable: 1, maxUnavailable: null },
};
const upstreamController = {
  envFrom: [{ configMapRef: { name: 'karpenter-extra-env' } }],
  extraVolumeMounts: [{ name: 'token', mountPath: '/var/run/secrets/token', readOnly: true }],
};

describe("Helm chart, upstream Karpenter chart's values", () => {
  it('renders the Deployment and PDB fields of upstream values, names overridden', async () => {
    const r = await render({
      provider: 'sim',
      nameOverride: 'kts',
      fullnameOverride: 'kts-controller',
      ...upstreamValues,
      controller: upstreamController,
    });
    const selector = {
      'app.kubernetes.io/name': 'kts',
      'app.kubernetes.io/instance': 'karpenter-ts',
    };
    for (const m of r.manifests) {
      expect(m.metadata.labels?.['team'], `${m.kind} ${m.metadata.name}`).toBe('platform');
      expect(m.metadata.labels?.['app.kubernetes.io/name']).toBe('kts');
    }
    const deployment = only(r.manifests, 'Deployment', 'kts-controller');
    const spec = deployment.spec as Record<string, unknown> & {
      template: { spec: Record<string, unknown> & { containers: Record<string, unknown>[] } };
    };
    expect(spec.revisionHistoryLimit).toBe(3);
    expect(spec.strategy).toEqual({ rollingUpdate: { maxUnavailable: 0, maxSurge: 1 } });
    const pod = spec.template.spec;
    expect(pod.hostNetwork).toBe(true);
    expect(pod.dnsPolicy).toBe('ClusterFirstWithHostNet');
    // Merged into the chart's defaults, as any map value.
    expect(pod.securityContext).toMatchObject({ fsGroup: 65536, runAsNonRoot: true });
    // As upstream: a constraint without a labelSelector gets the pods' selector labels.
    expect(pod.topologySpreadConstraints).toEqual([
      { ...upstreamValues.topologySpreadConstraints[0], labelSelector: { matchLabels: selector } },
    ]);
    expect(pod.volumes).toEqual(upstreamValues.extraVolumes);
    const container = pod.containers[0] as Record<string, unknown>;
    expect(container.envFrom).toEqual(upstreamController.envFrom);
    expect(container.volumeMounts).toEqual(upstreamController.extraVolumeMounts);
    expect(only(r.manifests, 'PodDisruptionBudget').spec).toEqual({
      minAvailable: 1,
      selector: { matchLabels: selector },
    });
    expect(only(r.manifests, 'ServiceAccount').metadata.name).toBe('kts-controller');
  });

  it('refuses a PDB with both minAvailable and maxUnavailable, saying which to null', async () => {
    const r = await helmTemplate(helm, {
      provider: 'sim',
      podDisruptionBudget: { minAvailable: 1 },
    });
    expect(r.ok ? 'rendered' : r.error).toContain(
      '- podDisruptionBudget.minAvailable and podDisruptionBudget.maxUnavailable are both set',
    );
  });

  it('refuses upstream values that have no meaning here (serviceMonitor, webhook), naming them', async () => {
    const r = await helmTemplate(helm, {
      provider: 'sim',
      serviceMonitor: { enabled: false },
      webhook: { enabled: false },
    });
    const error = r.ok ? 'rendered' : r.error;
    expect(error).toMatch(/additional properties '(serviceMonitor|webhook)'/);
    expect(error).toContain('serviceMonitor');
    expect(error).toContain('webhook');
  });
});

describe('Helm chart, provider azure: helm install on a real API server', () => {
  const namespace = 'karpenter-chart';
  const release = 'karpenter-ts';
  // Not the defaults: the downward API references must resolve these on the stored Deployment.
  const installedResources = {
    requests: { cpu: '500m', memory: '512Mi' },
    limits: { memory: '768Mi' },
  };
  let api: KubeConnection;
  let kubeconfig: string;

  beforeAll(async () => {
    kubeconfig = inject('kubeconfig');
    api = connect({ kubeconfig });
    await api.request('POST', '/api/v1/namespaces', {
      body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } },
    });
    // As docs/azure-deploy.md: the token lives in a Secret made before the install.
    await api.request('POST', `/api/v1/namespaces/${namespace}/secrets`, {
      body: {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'karpenter-bootstrap', namespace },
        stringData: secrets['karpenter-bootstrap'],
      },
    });
    // No node carries this label: the controller pods stay unscheduled, so no later suite's
    // NodePool provisions for them and uninstall never waits for a kubelet.
    await helmInstall(helm, kubeconfig, release, namespace, {
      ...azureValues,
      ...upstreamValues,
      // The same names as without it, so the checks below read the usual objects.
      fullnameOverride: release,
      controller: { resources: installedResources, ...upstreamController },
      nodeSelector: { 'karpenter-ts.test/chart-e2e': 'never' },
    });
  });

  afterAll(async () => {
    await helmUninstall(helm, kubeconfig, release, namespace).catch((err: unknown) =>
      console.error(`helm uninstall: ${String(err)}`),
    );
    await api?.request('DELETE', `/api/v1/namespaces/${namespace}`).catch(() => {});
  });

  it('stores a Deployment whose environment, with the Secret read back, the controller accepts', async () => {
    const deployment = await api.request<DeploymentSpec>(
      'GET',
      `/apis/apps/v1/namespaces/${namespace}/deployments/${release}`,
    );
    const secretList = await api.request<{
      items: { metadata: { name: string }; data?: Record<string, string> }[];
    }>('GET', `/api/v1/namespaces/${namespace}/secrets`);
    const stored = new Map(secretList.items.map((s) => [s.metadata.name, s.data ?? {}]));
    const r = resolve(deployment, {
      namespace,
      secret: (name, key) => {
        const b64 = stored.get(name)?.[key];
        return b64 === undefined ? undefined : Buffer.from(b64, 'base64').toString('utf8');
      },
    });
    const { options, settings } = startController(processEnv(r));
    expect(settings).toEqual(expectedSettings);
    expect(options).toMatchObject({
      provider: 'azure',
      leaderElectionNamespace: namespace,
      cpuRequests: 500,
      memoryLimit: 768 * 1024 ** 2,
    });
  });

  it("stores upstream's Deployment and PDB values as given", async () => {
    const deployment = await api.request<{
      metadata: { labels: Record<string, string> };
      spec: Record<string, unknown> & { template: { spec: Record<string, unknown> } };
    }>('GET', `/apis/apps/v1/namespaces/${namespace}/deployments/${release}`);
    expect(deployment.metadata.labels['team']).toBe('platform');
    expect(deployment.spec.revisionHistoryLimit).toBe(3);
    expect(deployment.spec.template.spec).toMatchObject({
      hostNetwork: true,
      dnsPolicy: 'ClusterFirstWithHostNet',
      volumes: upstreamValues.extraVolumes,
    });
    const pdb = await api.request<{ spec: Record<string, unknown> }>(
      'GET',
      `/apis/policy/v1/namespaces/${namespace}/poddisruptionbudgets/${release}`,
    );
    expect(pdb.spec['minAvailable']).toBe(1);
    expect(pdb.spec['maxUnavailable']).toBeUndefined();
  });

  it('stores the service account annotated with the workload identity client ID', async () => {
    const sa = await api.request<Manifest>(
      'GET',
      `/api/v1/namespaces/${namespace}/serviceaccounts/karpenter`,
    );
    expect(sa.metadata.annotations?.['azure.workload.identity/client-id']).toBe(
      azure.credential.clientID,
    );
  });
});
