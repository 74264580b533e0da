/**
 * What the kube-apiserver warns of, but accepts, in a workload the CLI expands into pods: a
 * memory or ephemeral-storage request or limit that is a fraction of a byte (`memory: 500m`, a
 * common slip for `500Mi`). The apiserver's pod warnings say `fractional byte value "500m" is
 * invalid, must be an integer`; the scheduler rounds such a value up to whole bytes, as the
 * kubelet does, so the workload is simulated as it would run.
 */
import {
  formatQuantity,
  parseQuantity,
  quantityToMilli,
  type Quantity,
} from '@karpenter-ts/scheduling';
import type { KubeObject } from '../manifests/document.js';
import type { FieldProblem } from './api-fields.js';
import { keyPath } from './api-fields.js';

/** Resources counted in bytes whose fractions the apiserver warns of. */
const BYTE_RESOURCES = ['memory', 'ephemeral-storage'] as const;

type Spec = Record<string, unknown>;

const isRecord = (v: unknown): v is Spec =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The warnings of one workload object (Deployment, ReplicaSet, ReplicationController,
 * StatefulSet, DaemonSet, Job, CronJob, Pod), paths relative to the object, in the apiserver's
 * order: per init container, then container, its limits then its requests, memory then
 * ephemeral-storage. Values that do not parse are problems ({@link workloadProblems}), not
 * warnings, and are skipped here. Other kinds: none.
 */
export function workloadWarnings(object: KubeObject): FieldProblem[] {
  const located = podSpecOf(object);
  if (located === undefined) return [];
  const [podSpec, at] = located;
  const warnings: FieldProblem[] = [];
  for (const list of ['initContainers', 'containers'] as const) {
    const containers = podSpec[list];
    if (!Array.isArray(containers)) continue;
    containers.forEach((container: unknown, i) => {
      if (!isRecord(container) || !isRecord(container.resources)) return;
      for (const kind of ['limits', 'requests'] as const) {
        const values = container.resources[kind];
        if (!isRecord(values)) continue;
        for (const name of BYTE_RESOURCES) {
          const quantity = parsed(values[name]);
          if (quantity === undefined || !fractionalBytes(quantity)) continue;
          warnings.push({
            path: keyPath(`${at}.${list}[${i}].resources.${kind}`, name),
            message: `fractional byte value ${JSON.stringify(formatQuantity(quantity))} is invalid, must be an integer`,
          });
        }
      }
    });
  }
  return warnings;
}

/** The pod spec of a workload and its path, or undefined when the kind has none or it is absent. */
function podSpecOf(object: KubeObject): [Spec, string] | undefined {
  const spec = object.spec;
  if (!isRecord(spec)) return undefined;
  switch (object.kind) {
    case 'Pod':
      return [spec, 'spec'];
    case 'CronJob': {
      const job = isRecord(spec.jobTemplate) ? spec.jobTemplate.spec : undefined;
      const template = isRecord(job) ? job.template : undefined;
      return isRecord(template) && isRecord(template.spec)
        ? [template.spec, 'spec.jobTemplate.spec.template.spec']
        : undefined;
    }
    case 'Deployment':
    case 'ReplicaSet':
    case 'ReplicationController':
    case 'StatefulSet':
    case 'DaemonSet':
    case 'Job': {
      const template = spec.template;
      return isRecord(template) && isRecord(template.spec)
        ? [template.spec, 'spec.template.spec']
        : undefined;
    }
    default:
      return undefined;
  }
}

function parsed(value: unknown): Quantity | undefined {
  if (typeof value !== 'string' && typeof value !== 'number') return undefined;
  try {
    return parseQuantity(value);
  } catch {
    return undefined;
  }
}

/** As the apiserver tests it: the milli-value (rounded up) is not a whole number of units. */
function fractionalBytes(quantity: Quantity): boolean {
  try {
    return quantityToMilli(quantity) % 1000 !== 0;
  } catch {
    return false; // beyond exact counting: a problem of its own, reported by workloadProblems
  }
}
