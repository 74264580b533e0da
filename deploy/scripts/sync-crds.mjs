#!/usr/bin/env node
// Copies the CRDs into the Helm chart (deploy/charts/karpenter-ts/crds/). The sources stay the
// single source of truth: packages/api/crds (karpenter.sh), packages/provider-azure/crds,
// packages/provider-aws/crds and apps/controller/crds (the sim provider's SimNodeClass).
// `--check` changes nothing and exits 1 when the chart's copies differ from the sources.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = fileURLToPath(new URL('../../', import.meta.url));
export const sourceDirs = [
  'packages/api/crds',
  'packages/provider-azure/crds',
  'packages/provider-aws/crds',
  'apps/controller/crds',
];
const target = join(repo, 'deploy/charts/karpenter-ts/crds');

const sources = new Map();
for (const dir of sourceDirs) {
  for (const file of readdirSync(join(repo, dir)).filter((f) => f.endsWith('.yaml')).sort()) {
    if (sources.has(file)) throw new Error(`${file} exists in two source folders`);
    sources.set(file, readFileSync(join(repo, dir, file), 'utf8'));
  }
}
const existing = existsSync(target) ? readdirSync(target).filter((f) => f.endsWith('.yaml')) : [];
const stale = existing.filter((f) => !sources.has(f));
const differing = [...sources].filter(
  ([file, text]) => !existing.includes(file) || readFileSync(join(target, file), 'utf8') !== text,
);

if (process.argv.includes('--check')) {
  if (stale.length + differing.length > 0) {
    console.error(
      `chart CRDs are out of date (run npm run chart:crds -w @karpenter-ts/controller): ` +
        [...differing.map(([f]) => `${f} differs`), ...stale.map((f) => `${f} has no source`)].join(', '),
    );
    process.exit(1);
  }
  console.log(`chart CRDs match their ${sources.size} sources`);
} else {
  mkdirSync(target, { recursive: true });
  for (const f of stale) rmSync(join(target, f));
  for (const [file, text] of differing) writeFileSync(join(target, file), text);
  console.log(`copied ${differing.length} CRD(s), removed ${stale.length}; ${sources.size} in the chart`);
}
