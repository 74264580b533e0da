/**
 * Runs the real Helm CLI on the chart in deploy/charts/karpenter-ts: `helm template` with a
 * values object written to a temporary values file, and `helm install` / `uninstall` against a
 * cluster. Helm is `$HELM`, else the build of tools/local-cluster/build-helm.sh in the cache
 * (`bash tools/local-cluster/build.sh helm`); a missing helm fails the suite, it never skips.
 */
import { execFile } from 'node:child_process';
import { accessSync, constants, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parseAllDocuments, stringify } from 'yaml';

const run = promisify(execFile);

/** The chart folder. */
export const chartDir = new URL('../../../../deploy/charts/karpenter-ts', import.meta.url).pathname;
/** The Helm version tools/local-cluster/build-helm.sh builds by default. */
export const helmVersion = process.env['HELM_VERSION'] ?? 'v3.22.0';
/** The Kubernetes version the chart is rendered for (the local control plane's). */
export const kubeVersion = '1.36.3';

/**
 * The helm binary: `$HELM`, else `<cache>/helm/<version>/bin/helm`.
 * @throws Error saying how to build it when neither is executable.
 */
export function findHelm(): string {
  const fromEnv = process.env['HELM'];
  const cache = process.env['KARPENTER_TS_CACHE'] ?? join(homedir(), '.cache', 'karpenter-ts');
  const path = fromEnv || join(cache, 'helm', helmVersion, 'bin', 'helm');
  try {
    accessSync(path, constants.X_OK);
  } catch {
    throw new Error(
      `helm is not at ${path}: build it with 'bash tools/local-cluster/build.sh helm' or set HELM`,
    );
  }
  return path;
}

/** A Kubernetes object as rendered. */
export interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    namespace?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  };
  [field: string]: unknown;
}

/** What `helm template` answered: the manifests, or its error text. */
export type Rendering =
  | { readonly ok: true; readonly manifests: Manifest[] }
  | { readonly ok: false; readonly error: string };

/** Writes `values` to a temporary values file, calls `use` with its path, then removes it. */
async function withValuesFile<T>(values: object, use: (file: string) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(process.env['TMPDIR'] ?? tmpdir(), 'karpenter-ts-chart.'));
  const file = join(dir, 'values.yaml');
  writeFileSync(file, stringify(values));
  try {
    return await use(file);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * `helm template <release> <chart> -f <values> --namespace <namespace>` for Kubernetes
 * {@link kubeVersion}, without the CRDs. A failure (a `required` value, a schema violation)
 * comes back as `{ok: false, error}` with helm's stderr.
 */
export async function helmTemplate(
  helm: string,
  values: object,
  options: { release?: string; namespace?: string } = {},
): Promise<Rendering> {
  return withValuesFile(values, async (file) => {
    try {
      const { stdout } = await run(
        helm,
        [
          'template',
          options.release ?? 'karpenter-ts',
          chartDir,
          '--kube-version',
          kubeVersion,
          '--namespace',
          options.namespace ?? 'karpenter',
          '-f',
          file,
        ],
        { maxBuffer: 16 << 20 },
      );
      const manifests = parseAllDocuments(stdout)
        .map((d) => d.toJS() as Manifest | null)
        .filter((m): m is Manifest => m !== null);
      return { ok: true, manifests };
    } catch (err) {
      const e = err as { stderr?: string; message: string };
      return { ok: false, error: e.stderr || e.message };
    }
  });
}

/** `helm install <release> <chart> -n <namespace> -f <values>` on the cluster of `kubeconfig`. */
export async function helmInstall(
  helm: string,
  kubeconfig: string,
  release: string,
  namespace: string,
  values: object,
): Promise<void> {
  await withValuesFile(values, (file) =>
    run(helm, [
      'install',
      release,
      chartDir,
      '--kubeconfig',
      kubeconfig,
      '-n',
      namespace,
      '-f',
      file,
    ]),
  );
}

/** `helm uninstall --wait` (deletes what the release created, not the CRDs). */
export async function helmUninstall(
  helm: string,
  kubeconfig: string,
  release: string,
  namespace: string,
): Promise<void> {
  await run(helm, ['uninstall', release, '--kubeconfig', kubeconfig, '-n', namespace, '--wait']);
}

/** The one manifest of `kind` (and `name`, if given). @throws Error when there is not exactly one. */
export function only(manifests: readonly Manifest[], kind: string, name?: string): Manifest {
  const found = manifests.filter(
    (m) => m.kind === kind && (name === undefined || m.metadata.name === name),
  );
  if (found.length !== 1)
    throw new Error(`expected one ${kind}${name ? ` ${name}` : ''}, rendered ${found.length}`);
  return found[0] as Manifest;
}
