/**
 * The cluster as it would be with proposed NodePools, NodeClasses and NodeOverlays: the
 * snapshot's objects with every one of those the proposal names (same kind and name) replaced by
 * the proposed one, and the proposal's others added. Nothing else of the proposal is taken: a
 * proposal holds NodePools, NodeClasses and NodeOverlays only (anything else is bad input, naming
 * the object and file). NodeOverlays apply with `--node-overlay` (the NodeOverlay gate).
 */
import { CliError } from '../errors.js';
import { location, objectName, type ManifestDocument } from '../manifests/document.js';
import { apiGroup, NODE_CLASS_GROUPS } from '../manifests/inventory.js';

/** Whether a document is a NodePool, a NodeOverlay or a NodeClass of a kind the CLI knows. */
function isProposable(doc: ManifestDocument): boolean {
  const { kind, apiVersion } = doc.object;
  const group = apiGroup(apiVersion);
  return (
    (group === 'karpenter.sh' && (kind === 'NodePool' || kind === 'NodeOverlay')) ||
    (NODE_CLASS_GROUPS[kind] !== undefined && NODE_CLASS_GROUPS[kind] === group)
  );
}

const identity = (doc: ManifestDocument) => `${doc.object.kind}/${doc.object.metadata?.name ?? ''}`;

/**
 * The snapshot with the proposal applied (see the module comment), and the names of what it
 * replaced and added (`NodePool/default`). Raises CliError, one line per object, for anything in
 * the proposal that is not a NodePool or NodeClass.
 */
export function withProposal(
  snapshot: readonly ManifestDocument[],
  proposal: readonly ManifestDocument[],
): { documents: ManifestDocument[]; replaced: string[]; added: string[] } {
  const foreign = proposal.filter((d) => !isProposable(d));
  if (foreign.length > 0)
    throw new CliError(
      foreign
        .map(
          (d) =>
            `${location(d)}${d.path ? ` ${d.path}` : ''} kind: ${objectName(d.object)}: --nodepools files hold NodePools, NodeOverlays and NodeClasses (AKSNodeClass, EC2NodeClass, SimNodeClass) only`,
        )
        .join('\n'),
    );
  const proposed = new Map(proposal.map((d) => [identity(d), d]));
  const replaced: string[] = [];
  const documents = snapshot.flatMap((d) => {
    if (!isProposable(d)) return [d];
    const next = proposed.get(identity(d));
    if (next === undefined) return [d];
    replaced.push(identity(d));
    return [];
  });
  const kept = new Set(snapshot.filter(isProposable).map(identity));
  const added = proposal.map(identity).filter((id) => !kept.has(id));
  return { documents: [...documents, ...proposal], replaced, added };
}
