/**
 * What the API server's LimitRanger admission plugin does to a pod's container resources when
 * the pod is created: the namespace's LimitRanges of `type: Container` fill in the limits and
 * requests a container leaves out. A pod read from the cluster already carries them; a pod
 * built from a template (a DaemonSet's, when none of its pods exists yet) or created by a
 * stand-in controller in the in-memory cluster gets them here.
 *
 * Order, as the API server has it: pod defaulting first (a resource with a limit and no request
 * requests its limit), then, LimitRange by LimitRange in name order, a missing limit takes the
 * item's `default` and a missing request its `defaultRequest`. The LimitRange itself is
 * defaulted as the API server stores it (`SetDefaults_LimitRangeItem`): `default` from `max`,
 * `defaultRequest` from `default`, then from `min`, so a LimitRange written in a file reads as
 * the stored one. Bounds (`min`, `max`, ratios) are not enforced: a pod breaking them would be
 * refused at admission, which no simulation replays.
 */
import type { Container, LimitRange, Pod } from '@karpenter-ts/api';

type Quantities = Record<string, string>;

/** `default` and `defaultRequest` of one Container item after the API server's defaulting. */
interface ContainerDefaults {
  readonly limits: Quantities;
  readonly requests: Quantities;
}

function containerDefaults(limitRanges: readonly LimitRange[]): ContainerDefaults[] {
  const sorted = [...limitRanges].sort((a, b) =>
    (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? ''),
  );
  const out: ContainerDefaults[] = [];
  for (const lr of sorted) {
    for (const item of lr.spec?.limits ?? []) {
      if (item.type !== 'Container') continue;
      // The client's model names the field `_default`; JSON and YAML (a snapshot) say `default`.
      const given = item._default ?? (item as { default?: Quantities }).default ?? {};
      const limits: Quantities = { ...(item.max ?? {}), ...given };
      const requests: Quantities = {
        ...(item.min ?? {}),
        ...limits,
        ...(item.defaultRequest ?? {}),
      };
      if (Object.keys(limits).length > 0 || Object.keys(requests).length > 0)
        out.push({ limits, requests });
    }
  }
  return out;
}

function admitContainer(container: Container, defaults: readonly ContainerDefaults[]): Container {
  const limits: Quantities = { ...(container.resources?.limits ?? {}) };
  // Pod defaulting runs before admission: a limit without a request is the request.
  const requests: Quantities = { ...limits, ...(container.resources?.requests ?? {}) };
  for (const d of defaults) {
    for (const [k, v] of Object.entries(d.limits)) if (!(k in limits)) limits[k] = v;
    for (const [k, v] of Object.entries(d.requests)) if (!(k in requests)) requests[k] = v;
  }
  const resources = {
    ...(container.resources ?? {}),
    ...(Object.keys(limits).length > 0 ? { limits } : {}),
    ...(Object.keys(requests).length > 0 ? { requests } : {}),
  };
  return Object.keys(resources).length > 0 ? { ...container, resources } : container;
}

/**
 * The pod as LimitRanger admits it in a namespace with `limitRanges` (only those of the pod's
 * namespace count; see the module comment). Returns the pod itself when nothing applies, else a
 * copy with containers and init containers filled in.
 */
export function admitPodResources(pod: Pod, limitRanges: readonly LimitRange[]): Pod {
  const namespace = pod.metadata?.namespace ?? 'default';
  const defaults = containerDefaults(
    limitRanges.filter((lr) => (lr.metadata?.namespace ?? 'default') === namespace),
  );
  if (defaults.length === 0 || pod.spec === undefined) return pod;
  return {
    ...pod,
    spec: {
      ...pod.spec,
      containers: pod.spec.containers.map((c) => admitContainer(c, defaults)),
      ...(pod.spec.initContainers
        ? { initContainers: pod.spec.initContainers.map((c) => admitContainer(c, defaults)) }
        : {}),
    },
  };
}
