/**
 * The node claim lifecycle controller (upstream `nodeclaim/lifecycle/controller.go`, behavior
 * 19): per NodeClaim, adds the `karpenter.sh/termination` finalizer before anything is launched,
 * then runs Launch → Registration → Initialization → Liveness on a working copy and writes back
 * metadata (labels, annotations) and then status, each only when changed. A deleted NodeClaim
 * is handed to {@link Finalization}. A write conflict requeues after 1 s (the next turn re-reads).
 */
import type { NodeClaim } from '@karpenter-ts/api';
import { Finalizers } from '@karpenter-ts/api';
import { setNodeClaimReady } from '../../conditions.js';
import { isConflict } from '../../kube/client.js';
import { done, type ReconcileResult } from '../../reconciler.js';
import type { LifecycleContext, StepResult } from './context.js';
import { Finalization } from './finalization.js';
import { Initialization } from './initialization.js';
import { Launch } from './launch.js';
import { Liveness } from './liveness.js';
import { Registration } from './registration.js';

/** Seconds to wait after a write conflict. */
export const CONFLICT_REQUEUE_SECONDS = 1;

/** See the module comment. One instance per controller process. */
export class NodeClaimLifecycle {
  readonly launch: Launch;
  readonly #registration: Registration;
  readonly #initialization: Initialization;
  readonly #liveness: Liveness;
  readonly #finalization: Finalization;

  constructor(private readonly ctx: LifecycleContext) {
    this.launch = new Launch(ctx);
    this.#registration = new Registration(ctx);
    this.#initialization = new Initialization(ctx);
    this.#liveness = new Liveness(ctx);
    this.#finalization = new Finalization(ctx);
  }

  /** Reconciles the NodeClaim named `name`. */
  async reconcile(name: string): Promise<ReconcileResult> {
    try {
      return await this.#reconcile(name);
    } catch (err) {
      if (isConflict(err)) return { requeueAfter: CONFLICT_REQUEUE_SECONDS };
      throw err;
    }
  }

  async #reconcile(name: string): Promise<ReconcileResult> {
    const { client, clock } = this.ctx;
    let nodeClaim = await client.get('NodeClaim', { name });
    if (nodeClaim === undefined) return done;
    if (nodeClaim.metadata.deletionTimestamp !== undefined) {
      const result = await this.#finalization.reconcile(nodeClaim);
      if (result.requeueAfter === undefined) this.launch.forget(nodeClaim.metadata.uid ?? name);
      return result;
    }
    if (!(nodeClaim.metadata.finalizers ?? []).includes(Finalizers.Termination)) {
      const next = structuredClone(nodeClaim);
      next.metadata.finalizers = [...(next.metadata.finalizers ?? []), Finalizers.Termination];
      nodeClaim = await client.update('NodeClaim', next);
    }

    const working = structuredClone(nodeClaim);
    const results: StepResult[] = [];
    for (const step of [this.launch, this.#registration, this.#initialization, this.#liveness]) {
      const r = await step.reconcile(working);
      if (r.deleted) return done;
      results.push(r);
    }
    setNodeClaimReady(working, clock.now());

    let written: NodeClaim = nodeClaim;
    if (metadataChanged(nodeClaim, working)) {
      const next = structuredClone(nodeClaim);
      next.metadata.labels = working.metadata.labels ?? {};
      next.metadata.annotations = working.metadata.annotations ?? {};
      written = await client.update('NodeClaim', next);
    }
    if (JSON.stringify(nodeClaim.status ?? {}) !== JSON.stringify(working.status ?? {})) {
      const next = structuredClone(written);
      next.status = working.status ?? {};
      await client.updateStatus('NodeClaim', next);
    }
    const waits = results.flatMap((r) => (r.requeueAfter === undefined ? [] : [r.requeueAfter]));
    return waits.length === 0 ? done : { requeueAfter: Math.min(...waits) };
  }
}

function metadataChanged(a: NodeClaim, b: NodeClaim): boolean {
  return (
    JSON.stringify(a.metadata.labels ?? {}) !== JSON.stringify(b.metadata.labels ?? {}) ||
    JSON.stringify(a.metadata.annotations ?? {}) !== JSON.stringify(b.metadata.annotations ?? {})
  );
}
