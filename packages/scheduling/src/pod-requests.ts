/**
 * A pod's resource requests as the kube-scheduler counts them (k8s `resourcehelper.PodRequests`),
 * which upstream Karpenter reuses for packing.
 */
import type { Container, Pod } from '@karpenter-ts/api';
import {
  addResources,
  maxResources,
  resourceListFromQuantities,
  type ResourceList,
} from './resources.js';

/** Container requests after API-server defaulting: a resource with a limit and no request requests its limit. */
function containerRequests(container: Container): ResourceList {
  const requests = {
    ...(container.resources?.limits ?? {}),
    ...(container.resources?.requests ?? {}),
  };
  return resourceListFromQuantities(requests);
}

/**
 * Returns the pod's effective requests in canonical units (cpu millicores, memory bytes, ...):
 * - regular containers are summed;
 * - init containers run one at a time, but restartable ones (sidecars, `restartPolicy: Always`)
 *   keep running: each init container needs its own requests plus every sidecar started before
 *   it, and sidecars also run beside the regular containers; the result is the larger of
 *   (containers + sidecars) and the biggest init-time need, per resource;
 * - pod-level `spec.resources.requests` (PodLevelResources) replace the aggregate for the
 *   resources they name;
 * - `spec.overhead` (RuntimeClass) is added;
 * - `pods: 1` is added, so a node's pod capacity is counted like any resource.
 * The result is frozen and cached per Pod object (a pod must not be changed in place once read).
 * Throws QuantityError (from parsing) when a quantity is malformed.
 */
export function podRequests(pod: Pod): ResourceList {
  // Pods are read-only here (every reader gets its own copy from the client), and a disruption
  // pass solves the same bound pods once per simulation: compute each object's requests once.
  const cached = cache.get(pod);
  if (cached !== undefined) return cached;
  const requests = Object.freeze(computePodRequests(pod));
  cache.set(pod, requests);
  return requests;
}

const cache = new WeakMap<Pod, ResourceList>();

function computePodRequests(pod: Pod): ResourceList {
  const spec = pod.spec;
  let sum: ResourceList = {};
  for (const container of spec?.containers ?? [])
    sum = addResources(sum, containerRequests(container));
  let sidecars: ResourceList = {};
  let initPeak: ResourceList = {};
  for (const container of spec?.initContainers ?? []) {
    const own = containerRequests(container);
    let need: ResourceList;
    if (container.restartPolicy === 'Always') {
      sidecars = addResources(sidecars, own);
      need = sidecars;
    } else {
      need = addResources(own, sidecars);
    }
    initPeak = maxResources(initPeak, need);
  }
  let requests = maxResources(addResources(sum, sidecars), initPeak);
  const podLevel = spec?.resources?.requests;
  if (podLevel !== undefined) requests = { ...requests, ...resourceListFromQuantities(podLevel) };
  if (spec?.overhead !== undefined)
    requests = addResources(requests, resourceListFromQuantities(spec.overhead));
  return addResources(requests, { pods: 1 });
}
