/**
 * The cloud a snapshot comes from, when `--cloud` does not say: the NodeClass kind its NodePools
 * (else NodeClaims) reference (AKSNodeClass: azure, EC2NodeClass: aws, SimNodeClass: sim), and
 * the region its Nodes carry in `topology.kubernetes.io/region` when the shipped catalog covers
 * it. Without either, the CLI's defaults (azure eastus).
 */
import type { CloudName } from '../commands/options.js';
import { knownRegions } from '../clouds/regions.js';
import type { ManifestDocument } from '../manifests/document.js';

const CLOUD_OF_KIND: Readonly<Record<string, CloudName>> = {
  AKSNodeClass: 'azure',
  EC2NodeClass: 'aws',
  SimNodeClass: 'sim',
};

/** The snapshot's cloud and region (undefined: the cloud's default), with how they were found. */
export function snapshotCloud(documents: readonly ManifestDocument[]): {
  cloud: CloudName | undefined;
  region: string | undefined;
} {
  let cloud: CloudName | undefined;
  for (const kind of ['NodePool', 'NodeClaim']) {
    for (const doc of documents) {
      if (doc.object.kind !== kind || !doc.object.apiVersion.startsWith('karpenter.sh/')) continue;
      const spec = doc.object.spec as
        | {
            template?: { spec?: { nodeClassRef?: { kind?: string } } };
            nodeClassRef?: { kind?: string };
          }
        | undefined;
      const ref = kind === 'NodePool' ? spec?.template?.spec?.nodeClassRef : spec?.nodeClassRef;
      cloud ??= CLOUD_OF_KIND[ref?.kind ?? ''];
    }
    if (cloud !== undefined) break;
  }
  if (cloud === undefined || cloud === 'sim') return { cloud, region: undefined };
  const known = new Set(knownRegions(cloud));
  for (const doc of documents) {
    if (doc.object.kind !== 'Node') continue;
    const region = doc.object.metadata?.labels?.['topology.kubernetes.io/region'];
    if (region !== undefined && known.has(region)) return { cloud, region };
  }
  return { cloud, region: undefined };
}
