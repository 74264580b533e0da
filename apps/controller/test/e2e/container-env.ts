/**
 * The environment a container of a pod template starts with, resolved as the kubelet resolves
 * `env`: literal values, `secretKeyRef` (from the Secrets given), `fieldRef` to the pod's
 * namespace, and `resourceFieldRef` (the container's own requests and limits over the divisor,
 * rounded up, as the downward API does). Anything else fails loudly, so a chart change that
 * needs more resolution cannot pass unnoticed.
 */
import { parseQuantity, quantityToMilli, quantityToValue } from '@karpenter-ts/scheduling';

/** One `env` entry of a container. */
export interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: {
    secretKeyRef?: { name: string; key: string; optional?: boolean };
    fieldRef?: { fieldPath: string };
    resourceFieldRef?: { containerName?: string; resource: string; divisor?: string };
  };
}

/** The parts of a container this reads. */
export interface ContainerSpec {
  name: string;
  env?: EnvVar[];
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
}

/** Where references point: the pod's namespace, and the Secrets' data (decoded). */
export interface EnvContext {
  readonly namespace: string;
  /** The value of `key` in Secret `name` of the pod's namespace, or undefined when absent. */
  readonly secret: (name: string, key: string) => string | undefined;
}

/** A downward API resource value: the quantity over the divisor, rounded up. */
function resourceValue(container: ContainerSpec, resource: string, divisor: string): string {
  const [kind, name] = resource.split('.') as [string, string | undefined];
  const quantity =
    kind === 'limits' || kind === 'requests'
      ? container.resources?.[kind]?.[name ?? '']
      : undefined;
  if (quantity === undefined)
    throw new Error(`resourceFieldRef ${resource}: the container sets no such ${kind}`);
  const q = parseQuantity(quantity);
  // A zero divisor means 1, as in the downward API.
  if (divisor === '0' || divisor === '1') return String(quantityToValue(q));
  if (divisor === '1m') return String(quantityToMilli(q));
  throw new Error(`resourceFieldRef ${resource}: divisor ${divisor} is not resolved by this test`);
}

/**
 * The container's environment, in `env` order (a later duplicate replaces an earlier one, as in
 * the kubelet).
 * @throws Error naming the variable when a Secret key is missing (the kubelet would not start
 *   the container) or a reference kind is not one this resolves.
 */
export function containerEnvironment(
  container: ContainerSpec,
  context: EnvContext,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const v of container.env ?? []) {
    const from = v.valueFrom;
    if (from === undefined) {
      out[v.name] = v.value ?? '';
    } else if (from.secretKeyRef) {
      const { name, key } = from.secretKeyRef;
      const value = context.secret(name, key);
      if (value === undefined)
        throw new Error(`${v.name}: Secret ${name} has no key ${key}; the container cannot start`);
      out[v.name] = value;
    } else if (from.fieldRef) {
      if (from.fieldRef.fieldPath !== 'metadata.namespace')
        throw new Error(`${v.name}: fieldRef ${from.fieldRef.fieldPath} is not resolved here`);
      out[v.name] = context.namespace;
    } else if (from.resourceFieldRef) {
      const ref = from.resourceFieldRef;
      if (ref.containerName !== undefined && ref.containerName !== container.name)
        throw new Error(`${v.name}: resourceFieldRef of another container (${ref.containerName})`);
      out[v.name] = resourceValue(container, ref.resource, ref.divisor ?? '1');
    } else {
      throw new Error(`${v.name}: a valueFrom this test does not resolve`);
    }
  }
  return out;
}

/** The Deployment's pod template as this reads it. */
export interface DeploymentSpec {
  spec: {
    template: {
      metadata: { labels?: Record<string, string> };
      spec: { serviceAccountName?: string; containers: ContainerSpec[] };
    };
  };
}

/** The container called `name` of a Deployment. @throws Error when there is none. */
export function containerOf(deployment: DeploymentSpec, name: string): ContainerSpec {
  const c = deployment.spec.template.spec.containers.find((x) => x.name === name);
  if (c === undefined) throw new Error(`the Deployment has no container ${name}`);
  return c;
}
