/** Shared helpers of the integration tests: the connection to the run's cluster, CRDs, polling. */
import { inject } from 'vitest';
import { fileURLToPath } from 'node:url';
import { connect, installCrds, karpenterCrdFiles, type KubeConnection } from '../../src/index.js';

/** The repository root (examples/, packages/). */
export const repoRoot = fileURLToPath(new URL('../../../../', import.meta.url));

/** The provider NodeClass CRD files. */
export const providerCrdFiles = [
  `${repoRoot}packages/provider-azure/crds/karpenter.azure.com_aksnodeclasses.yaml`,
  `${repoRoot}packages/provider-aws/crds/karpenter.k8s.aws_ec2nodeclasses.yaml`,
];

/** A connection to the cluster that global-setup.ts started. */
export function clusterConnection(): KubeConnection {
  return connect({ kubeconfig: inject('kubeconfig') });
}

/** Applies every CRD (idempotent: server-side apply) and waits until Established. */
export function installAllCrds(connection: KubeConnection): Promise<string[]> {
  return installCrds(connection, [...karpenterCrdFiles(), ...providerCrdFiles]);
}

/**
 * Polls `probe` until it returns a value other than undefined/false, or fails with `what`
 * after `timeoutMs` (a readiness wait, not a timing assertion).
 */
export async function eventually<T>(
  what: string,
  probe: () => Promise<T | undefined | false> | T | undefined | false,
  timeoutMs = 60_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined && value !== false) return value;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what}${lastError ? `: ${String(lastError)}` : ''}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A name unique within the run. */
export function uniqueName(prefix: string): string {
  return `${prefix}-${Date.now().toString(36)}-${Math.floor(Math.random() * 1e6).toString(36)}`;
}
