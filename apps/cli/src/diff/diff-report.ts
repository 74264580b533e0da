/**
 * `diff` as data: the cluster run to a stable state under its own NodePools and NodeClasses and
 * under the proposed ones, side by side, and the change.
 */
import type { Cloud } from '../clouds/cloud.js';
import type { ClusterOptions } from '../cluster/cluster-loop.js';
import type { ManifestDocument } from '../manifests/document.js';
import { roundUsd } from '../output/units.js';
import { rfc3339 } from '../disrupt/nodes-report.js';
import { withProposal } from './proposed-input.js';
import { stableRun, type RunSummary } from './stable-run.js';

/** See the module comment. Prices in USD/hour. */
export interface DiffReport {
  readonly now: string;
  readonly cloud: string;
  readonly region: string;
  /** What the proposal replaced and added (`NodePool/default`). */
  readonly proposal: { readonly replaced: readonly string[]; readonly added: readonly string[] };
  readonly current: RunSummary;
  readonly proposed: RunSummary;
  /**
   * Notes of the proposed run that the current one does not have: what became of the proposal's
   * objects (a NodePool of another cloud is ignored, a missing NodeClass replaced by defaults).
   */
  readonly proposalNotes: readonly string[];
  readonly change: {
    readonly nodes: number;
    readonly pricePerHour: number;
    readonly pendingPods: number;
    /** Nodes the proposal's drift replaces (candidates of its Drifted commands). */
    readonly driftReplaced: readonly string[];
    /** Pods pending under the proposal that are not under the current NodePools. */
    readonly newlyPending: readonly string[];
  };
}

/** Runs both sides (see the module comment). */
export async function diffReport(
  snapshot: readonly ManifestDocument[],
  proposal: readonly ManifestDocument[],
  cloud: Cloud,
  options: Omit<ClusterOptions, 'disruptionObserver' | 'disruption'>,
): Promise<DiffReport> {
  const applied = withProposal(snapshot, proposal);
  const current = await stableRun(snapshot, cloud, options);
  const proposed = await stableRun(applied.documents, cloud, options);
  const pendingNow = new Set(current.pendingPods);
  const currentNotes = new Set(current.notes);
  return {
    now: rfc3339(options.now.getTime()),
    cloud: cloud.name,
    region: cloud.region,
    proposal: { replaced: applied.replaced, added: applied.added },
    current,
    proposed,
    proposalNotes: proposed.notes.filter((n) => !currentNotes.has(n)),
    change: {
      nodes: proposed.nodes - current.nodes,
      pricePerHour: roundUsd(proposed.pricePerHour - current.pricePerHour),
      pendingPods: proposed.pendingPods.length - current.pendingPods.length,
      driftReplaced: proposed.commands
        .filter((c) => c.reason === 'Drifted')
        .flatMap((c) => c.candidates.map((x) => x.name))
        .sort(),
      newlyPending: proposed.pendingPods.filter((p) => !pendingNow.has(p)),
    },
  };
}
