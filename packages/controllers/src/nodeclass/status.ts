/**
 * Setting a NodeClass's status conditions and writing the status, as every NodeClass status
 * controller does (the sim provider's, each cloud provider package's): each condition carries the object's generation
 * (`observedGeneration`) and keeps its `lastTransitionTime` unless the status flips, like
 * upstream's operatorpkg conditions; a write that conflicts is retried in 1 s, one whose NodeClass
 * is gone is dropped.
 */
import type { ConditionStatus, StatusCondition } from '@karpenter-ts/api';
import type { Clock } from '../clock.js';
import { isConflict, isNotFound, type KubeClient, type NodeClassObject } from '../kube/client.js';
import type { ReconcileResult } from '../reconciler.js';

/**
 * A condition as a NodeClass status holds it: a {@link StatusCondition} whose
 * `lastTransitionTime` may be missing (an AKSNodeClass's conditions type it optional).
 */
export type NodeClassCondition = Omit<StatusCondition, 'lastTransitionTime'> & {
  lastTransitionTime?: string;
};

/** A condition to set: `reason` defaults to the type, `message` to `''`. */
export interface NodeClassConditionUpdate {
  readonly type: string;
  readonly status: ConditionStatus;
  readonly reason?: string | undefined;
  readonly message?: string | undefined;
}

/**
 * `conditions` with `update` set (a new list; the input is not changed): the condition of that
 * type is replaced where it stands, or appended when there is none. Its `lastTransitionTime` is
 * the previous one when the status is unchanged (and the previous one is set), else `nowIso`
 * (RFC 3339); `observedGeneration` is `generation` when known (operatorpkg's rule for
 * conditions). Keeping the position means a rewrite that changes nothing leaves the list equal.
 */
export function setNodeClassCondition<C extends NodeClassCondition>(
  conditions: readonly C[],
  update: NodeClassConditionUpdate,
  generation: number | undefined,
  nowIso: string,
): (C | StatusCondition)[] {
  const previous = conditions.find((c) => c.type === update.type);
  const next: StatusCondition = {
    type: update.type,
    status: update.status,
    reason: update.reason ?? update.type,
    message: update.message ?? '',
    lastTransitionTime:
      previous?.status === update.status && previous.lastTransitionTime
        ? previous.lastTransitionTime
        : nowIso,
    ...(generation !== undefined ? { observedGeneration: generation } : {}),
  };
  return previous
    ? conditions.map((c) => (c.type === update.type ? next : c))
    : [...conditions, next];
}

/**
 * Writes `next` (a whole NodeClass with its new status) through `updateStatus`. Returns
 * `written`; `conflict` when the cache was behind (the caller requeues after 1 s and the next
 * pass re-reads); `gone` when the NodeClass no longer exists. Other API errors are raised.
 */
export async function writeNodeClassStatus(
  client: KubeClient,
  next: NodeClassObject,
): Promise<'written' | 'conflict' | 'gone'> {
  try {
    await client.updateStatus('NodeClass', next);
  } catch (err) {
    if (isConflict(err)) return 'conflict';
    if (isNotFound(err)) return 'gone';
    throw err;
  }
  return 'written';
}

/** The `Ready` condition to write. */
export interface NodeClassReadiness {
  readonly status: 'True' | 'False';
  /** CamelCase reason, `Ready` when True. */
  readonly reason: string;
  /** Why not ready; `''` when ready. */
  readonly message: string;
}

/**
 * Writes `current`'s status with `fields` merged in and `Ready` set to `ready` by
 * {@link setNodeClassCondition} (other conditions kept). Returns `done` once written; requeue
 * after 1 s on a conflict; `{}` when the NodeClass is gone. Other API errors are raised.
 */
export async function writeNodeClassReady(
  client: KubeClient,
  clock: Clock,
  current: NodeClassObject,
  ready: NodeClassReadiness,
  fields: Readonly<Record<string, unknown>>,
  done: ReconcileResult,
): Promise<ReconcileResult> {
  const next: NodeClassObject = structuredClone(current);
  next.status = {
    ...(next.status ?? {}),
    ...fields,
    conditions: setNodeClassCondition(
      current.status?.conditions ?? [],
      { type: 'Ready', ...ready },
      current.metadata.generation,
      new Date(clock.now()).toISOString(),
    ),
  };
  const outcome = await writeNodeClassStatus(client, next);
  if (outcome === 'conflict') return { requeueAfter: 1 };
  if (outcome === 'gone') return {};
  return done;
}
