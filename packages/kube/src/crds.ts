/**
 * Installing CustomResourceDefinitions: server-side apply of each CRD document (the CRDs are too
 * large for client-side apply's last-applied annotation), then waiting until the API server
 * reports every one `Established` (its REST endpoints serve) — the step `kubectl wait
 * --for=condition=Established` does by hand.
 */
import { readFileSync } from 'node:fs';
import { crdPath, CrdFiles, type KarpenterKind } from '@karpenter-ts/api';
import { parseAllDocuments } from 'yaml';
import type { KubeConnection } from './connection.js';
import { CrdResource, objectPath } from './resources.js';

/** Options of {@link installCrds}. */
export interface InstallCrdsOptions {
  /** Field manager of the apply. Default `karpenter-ts`. */
  readonly fieldManager?: string;
  /** How long to wait for `Established`, milliseconds. Default 60 000. */
  readonly timeoutMs?: number;
  /** Pause between status checks, milliseconds. Default 250. */
  readonly pollMs?: number;
}

interface CrdDocument {
  apiVersion?: string;
  kind?: string;
  metadata?: { name?: string };
  status?: { conditions?: { type?: string; status?: string; reason?: string; message?: string }[] };
}

/** Paths of the karpenter.sh CRDs shipped in @karpenter-ts/api (NodePool, NodeClaim, NodeOverlay). */
export function karpenterCrdFiles(): string[] {
  return (Object.keys(CrdFiles) as KarpenterKind[]).map(crdPath);
}

/**
 * Applies the CRDs in `files` (YAML, one or more documents each; non-CRD documents are an
 * error) and resolves with their names once all are Established.
 * @throws Error naming the file and document for a document that is not a CRD; the API
 * server's rejection (KubeApiError) for an invalid CRD; Error naming the CRDs and their
 * conditions when they are not Established within `timeoutMs`.
 */
export async function installCrds(
  connection: KubeConnection,
  files: readonly string[],
  options: InstallCrdsOptions = {},
): Promise<string[]> {
  const documents: CrdDocument[] = [];
  for (const file of files) {
    for (const [index, doc] of parseAllDocuments(readFileSync(file, 'utf8')).entries()) {
      if (doc.errors.length > 0)
        throw new Error(
          `${file}: document ${index + 1}: ${doc.errors[0]?.message ?? 'YAML error'}`,
        );
      const crd = doc.toJS() as CrdDocument | null;
      if (crd === null) continue;
      if (crd.kind !== 'CustomResourceDefinition' || !crd.metadata?.name) {
        throw new Error(
          `${file}: document ${index + 1} is a ${String(crd.kind)}, not a named CustomResourceDefinition`,
        );
      }
      documents.push(crd);
    }
  }
  const names: string[] = [];
  for (const crd of documents) {
    const name = crd.metadata?.name ?? '';
    await connection.request('PATCH', objectPath(CrdResource, name), {
      body: crd,
      contentType: 'application/apply-patch+yaml',
      query: { fieldManager: options.fieldManager ?? 'karpenter-ts', force: true },
    });
    names.push(name);
  }
  await waitForEstablished(connection, names, options);
  return names;
}

/**
 * Resolves once every named CRD has condition `Established=True`.
 * @throws Error listing the CRDs still not Established (with their conditions) after `timeoutMs`.
 */
export async function waitForEstablished(
  connection: KubeConnection,
  names: readonly string[],
  options: Pick<InstallCrdsOptions, 'timeoutMs' | 'pollMs'> = {},
): Promise<void> {
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  let waiting = [...names];
  let last = new Map<string, CrdDocument>();
  for (;;) {
    const still: string[] = [];
    last = new Map();
    for (const name of waiting) {
      const crd = await connection.request<CrdDocument>('GET', objectPath(CrdResource, name));
      last.set(name, crd);
      if (!crd.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True'))
        still.push(name);
    }
    waiting = still;
    if (waiting.length === 0) return;
    if (Date.now() >= deadline) {
      const detail = waiting.map((n) => {
        const conditions = last.get(n)?.status?.conditions ?? [];
        return `${n} [${conditions.map((c) => `${c.type}=${c.status}${c.reason ? ` (${c.reason})` : ''}`).join(', ')}]`;
      });
      throw new Error(
        `CRDs not Established within ${options.timeoutMs ?? 60_000} ms: ${detail.join('; ')}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, options.pollMs ?? 250));
  }
}
