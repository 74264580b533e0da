import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// The integration suite: one real control plane (tools/local-cluster) for the whole run,
// started by global-setup.ts. Files run one after another: they share the cluster, and the
// machine has two cores. Same source resolution as vitest.shared.ts (not merged in, because
// merging would add the unit tests' include patterns).
const conditions = ['@karpenter-ts/source'];
export default defineConfig({
  root: fileURLToPath(new URL('../..', import.meta.url)),
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  test: {
    include: ['test/integration/**/*.test.ts'],
    globalSetup: ['test/integration/global-setup.ts'],
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 240_000,
  },
});
