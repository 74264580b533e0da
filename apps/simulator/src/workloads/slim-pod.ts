/**
 * Pod templates cut down to what scheduling, provisioning and disruption read. The controllers
 * copy every object on every read, so a pod's environment variables, probes, images and mounts
 * would cost time on every tick without changing a decision.
 */
import type { Container, Pod, PodSpec } from '@karpenter-ts/api';

const KEPT_SPEC_FIELDS = [
  'nodeSelector',
  'affinity',
  'tolerations',
  'topologySpreadConstraints',
  'priorityClassName',
  'priority',
  'preemptionPolicy',
  'overhead',
  'runtimeClassName',
  'schedulingGates',
  'terminationGracePeriodSeconds',
  'hostNetwork',
] as const;

/** A container's name, requests and limits, host ports and (init containers) restart policy. */
function slimContainer(c: Container): Container {
  const hostPorts = (c.ports ?? []).filter((p) => p.hostPort !== undefined);
  return {
    name: c.name,
    ...(c.resources ? { resources: c.resources } : {}),
    ...(hostPorts.length > 0 ? { ports: hostPorts } : {}),
    ...(c.restartPolicy ? { restartPolicy: c.restartPolicy } : {}),
  };
}

/** The spec with only the fields scheduling reads (see the module comment). */
export function slimPodSpec(spec: PodSpec): PodSpec {
  const out: PodSpec = { containers: spec.containers.map(slimContainer) };
  if (spec.initContainers) out.initContainers = spec.initContainers.map(slimContainer);
  for (const key of KEPT_SPEC_FIELDS) {
    if (spec[key] !== undefined) (out as unknown as Record<string, unknown>)[key] = spec[key];
  }
  return out;
}

/** A pod template (labels, annotations, slim spec) from a pod the CLI's expansion made. */
export function podTemplate(pod: Pod): Pick<Pod, 'metadata' | 'spec'> {
  return {
    metadata: {
      ...(pod.metadata?.labels ? { labels: { ...pod.metadata.labels } } : {}),
      ...(pod.metadata?.annotations ? { annotations: { ...pod.metadata.annotations } } : {}),
    },
    spec: slimPodSpec(pod.spec ?? { containers: [] }),
  };
}
