/**
 * Writing a NodeClass's status with its `Ready` condition, as every NodeClass status controller
 * of the operator ends: the condition carries the object's generation (`observedGeneration`) and
 * keeps its `lastTransitionTime` unless the status flips, like upstream's operatorpkg conditions.
 */
import {
  isConflict,
  isNotFound,
  type Clock,
  type KubeClient,
  type NodeClassObject,
  type ReconcileResult,
} from '@karpenter-ts/controllers';

/** The `Ready` condition to write. */
export interface NodeClassReadiness {
  readonly status: 'True' | 'False';
  /** CamelCase reason, `Ready` when True. */
  readonly reason: string;
  /** Why not ready; `''` when ready. */
  readonly message: string;
}

/**
 * Writes `current`'s status with `fields` merged in and `Ready` set to `ready` (other conditions
 * kept) through `updateStatus`. Returns `done` once written; requeue after 1 s on a conflict
 * (the cache was behind; the next pass re-reads); `{}` when the NodeClass is gone. Other API
 * errors are raised.
 */
export async function writeNodeClassReady(
  client: KubeClient,
  clock: Clock,
  current: NodeClassObject,
  ready: NodeClassReadiness,
  fields: Readonly<Record<string, unknown>>,
  done: ReconcileResult,
): Promise<ReconcileResult> {
  const conditions = current.status?.conditions ?? [];
  const previous = conditions.find((c) => c.type === 'Ready');
  const generation = current.metadata.generation;
  const now = new Date(clock.now()).toISOString();
  const next: NodeClassObject = structuredClone(current);
  next.status = {
    ...(next.status ?? {}),
    ...fields,
    conditions: [
      ...conditions.filter((c) => c.type !== 'Ready'),
      {
        type: 'Ready',
        status: ready.status,
        reason: ready.reason,
        message: ready.message,
        lastTransitionTime: previous?.status === ready.status ? previous.lastTransitionTime : now,
        ...(generation !== undefined ? { observedGeneration: generation } : {}),
      },
    ],
  };
  try {
    await client.updateStatus('NodeClass', next);
  } catch (err) {
    if (isConflict(err)) return { requeueAfter: 1 };
    if (isNotFound(err)) return {};
    throw err;
  }
  return done;
}
