/**
 * Polling of long-running operations: `GET .../locations/{loc}/operations/{id}` answers ARM's
 * async-operation status body (`{name, status, startTime, endTime?, error?}`); the Location URL
 * (`operationResults/{id}`) answers 202 while running, then 200/204 or the error. An operation
 * nobody polls for `unpolledOperationMs` finishes on its own ({@link finishUnpolledOperations}).
 */
import { ArmError } from './arm-error.js';
import { completeVmOperation } from './compute.js';
import type { ArmResponse, EmulatorContext } from './context.js';
import type { ArmOperation } from './state.js';

/** Ends an operation: its resource takes its final state (a VM boots, a delete removes it). */
async function finish(ctx: EmulatorContext, op: ArmOperation): Promise<void> {
  const failed = op.error !== undefined;
  // Marked first: a sweep and a poll arriving while the boot hook runs must not finish it twice.
  op.status = failed ? 'Failed' : 'Succeeded';
  op.endTime = new Date().toISOString();
  const resource = ctx.state.resources.get(op.resourceId.toLowerCase());
  if (!resource) return;
  if (resource.type === 'Microsoft.Compute/virtualMachines') {
    await completeVmOperation(ctx, resource, op.kind, failed);
  } else if (op.kind === 'delete' && !failed) {
    ctx.state.resources.delete(op.resourceId.toLowerCase());
  } else {
    resource.properties.provisioningState = failed ? 'Failed' : 'Succeeded';
  }
}

async function advance(ctx: EmulatorContext, op: ArmOperation): Promise<void> {
  if (op.status !== 'InProgress') return;
  op.lastPolledAt = Date.now();
  if (op.pollsLeft > 0) {
    op.pollsLeft -= 1;
    return;
  }
  await finish(ctx, op);
}

/**
 * Finishes every operation still in progress that nobody has polled (or started) for
 * `ctx.unpolledOperationMs` as of `now` (ms since the epoch), as ARM finishes an accepted
 * operation whose client died: a VM create boots the VM (and calls the boot hook), a delete
 * removes the resource. Does nothing when `unpolledOperationMs` is undefined. Returns how many
 * it finished.
 */
export async function finishUnpolledOperations(ctx: EmulatorContext, now: number): Promise<number> {
  const limit = ctx.unpolledOperationMs;
  if (limit === undefined) return 0;
  const due = [...ctx.state.operations.values()].filter(
    (op) => op.status === 'InProgress' && now - op.lastPolledAt >= limit,
  );
  for (const op of due) await finish(ctx, op);
  return due.length;
}

function find(ctx: EmulatorContext, id: string): ArmOperation {
  const op = ctx.state.operations.get(id);
  if (!op) throw new ArmError(404, 'OperationNotFound', `Operation ${id} was not found.`);
  return op;
}

/** The async-operation status of an operation (advancing it by one poll). */
export async function getOperationStatus(ctx: EmulatorContext, id: string): Promise<ArmResponse> {
  const op = find(ctx, id);
  await advance(ctx, op);
  return {
    status: 200,
    body: {
      name: op.id,
      status: op.status,
      startTime: op.startTime,
      ...(op.endTime ? { endTime: op.endTime } : {}),
      ...(op.error ? { error: op.error } : {}),
    },
  };
}

/** The operation-result view (Location header): 202 while running, 204 when done, else the error. */
export async function getOperationResult(ctx: EmulatorContext, id: string): Promise<ArmResponse> {
  const op = find(ctx, id);
  await advance(ctx, op);
  if (op.status === 'InProgress') return { status: 202 };
  if (op.error) throw new ArmError(409, op.error.code, op.error.message);
  return { status: 204 };
}
