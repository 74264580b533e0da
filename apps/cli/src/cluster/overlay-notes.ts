/**
 * What the NodeOverlay controller decided in a CLI run, as notes: which overlays apply, and each
 * one refused with the condition it got (`Conflict`, `RuntimeValidation`) and why.
 */
import type { RunningCluster } from './cluster-loop.js';

/** Notes on the overlays of `cluster` (none when the gate is off or there are no overlays). */
export function nodeOverlayNotes(cluster: RunningCluster): string[] {
  const last = cluster.loop.nodeOverlay?.last;
  if (last === undefined || last.order.length === 0) return [];
  const notes: string[] = [];
  const applied = last.order.filter((name) => !last.refused.has(name));
  if (applied.length > 0)
    notes.push(
      `${applied.length} NodeOverlay(s) applied, highest weight first: ${applied.join(', ')}`,
    );
  for (const [name, why] of last.refused)
    notes.push(
      `NodeOverlay ${name} not applied (ValidationSucceeded=False, ${why.reason}): ${why.message}`,
    );
  return notes;
}
