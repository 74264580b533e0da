import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// End-to-end suite (`npm run test:e2e`; `npm test` runs it through the root `test:cluster`): one real control plane from
// tools/local-cluster for the run, started by test/e2e/global-setup.ts. Same source resolution
// as vitest.shared.ts (not merged, which would add the unit tests' include patterns).
const conditions = ['@karpenter-ts/source'];
export default defineConfig({
  root: fileURLToPath(new URL('../..', import.meta.url)),
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  test: {
    include: ['test/e2e/**/*.e2e.ts'],
    globalSetup: ['test/e2e/global-setup.ts'],
    fileParallelism: false,
    testTimeout: 240_000,
    hookTimeout: 240_000,
  },
});
