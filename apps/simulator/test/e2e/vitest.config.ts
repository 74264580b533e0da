import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// Browser suite (`npm run test:e2e`; `npm test` runs it through the root `test:cluster`): the
// HTML report opened in Debian's headless Chromium (installed by tools/chromium/install.sh).
// Same source resolution as vitest.shared.ts (not merged, which would add the unit tests'
// include patterns).
const conditions = ['@karpenter-ts/source'];
export default defineConfig({
  root: fileURLToPath(new URL('../..', import.meta.url)),
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  test: {
    include: ['test/e2e/**/*.e2e.ts'],
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 180_000,
  },
});
