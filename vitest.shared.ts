// Shared vitest settings: tests resolve workspace packages to their TypeScript sources through
// the `@karpenter-ts/source` export condition, so a test never runs against a stale dist/.
import { defineConfig } from 'vitest/config';

export const sharedConfig = defineConfig({
  resolve: { conditions: ['@karpenter-ts/source'] },
  ssr: { resolve: { conditions: ['@karpenter-ts/source'] } },
  test: {
    include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
    testTimeout: 30_000,
  },
});
