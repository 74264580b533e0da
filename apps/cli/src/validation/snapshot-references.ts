/**
 * The warnings `validate` gives for an input the commands that read it as a cluster (simulate,
 * explain, compare, disrupt, diff) will refuse although the API server accepts each of its
 * objects: the controllers' snapshot reference rules (snapshotReferenceProblems: a Pod bound to
 * a Node the input lacks, a NodeClaim not launched yet or without its Node), run over the
 * input's NodeClaims, Nodes and Pods read as readSnapshot reads them.
 */
import type { Node, NodeClaim } from '@karpenter-ts/api';
import { snapshotReferenceProblems, type Located } from '@karpenter-ts/controllers';
import { fieldPath, objectName, type ManifestDocument } from '../manifests/document.js';
import { inventory } from '../manifests/inventory.js';
import { withReadableStatus } from '../snapshot/readable-status.js';
import { expandWorkloads } from '../workloads/expand.js';
import { apiServerDecoded } from './api-fields.js';
import type { Problem } from './validate-documents.js';

/** What the warning says the input's broken reference means, before the rule's own message. */
export const SNAPSHOT_REFUSAL =
  'simulate, explain, compare, disrupt and diff read the input as a cluster and refuse it';

/**
 * One warning per broken snapshot reference rule in `documents`, on the field of the object
 * that breaks it. Call it on an input without validation problems only: it reads the objects
 * as the commands would, which assumes each is valid.
 */
export function snapshotReferenceWarnings(documents: readonly ManifestDocument[]): Problem[] {
  const inv = inventory(documents);
  // Each object's source is its document's index here, to map a problem back to the document.
  const docs: ManifestDocument[] = [];
  const located = <T>(object: T, doc: ManifestDocument): Located<T> => {
    docs.push(doc);
    return { object, source: String(docs.length - 1), path: '' };
  };
  const pods = expandWorkloads(inv.workloads.filter((d) => d.object.kind === 'Pod'));
  const problems = snapshotReferenceProblems({
    nodeClaims: inv.nodeClaims.map((doc) =>
      located(withReadableStatus(doc.object as unknown as NodeClaim).claim, doc),
    ),
    nodes: inv.nodes.map((doc) => located(apiServerDecoded(doc.object) as unknown as Node, doc)),
    pods: [...pods.boundPods, ...pods.pending].map((pod) => located(pod, pods.origin.get(pod)!)),
  });
  return problems.map((p) => {
    const doc = docs[Number(p.source)]!;
    return {
      file: doc.file,
      document: doc.document,
      field: fieldPath(doc, p.field),
      message: `${SNAPSHOT_REFUSAL}: ${p.message}`,
      object: objectName(doc.object),
    };
  });
}
