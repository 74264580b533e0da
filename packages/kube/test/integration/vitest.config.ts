import { defineConfig, mergeConfig } from 'vitest/config';
import { sharedConfig } from '../../../../vitest.shared.ts';

// The integration suite: one real control plane (tools/local-cluster) for the whole run,
// started by global-setup.ts. Files run one after another: they share the cluster, and the
// machine has two cores.
export default mergeConfig(
  sharedConfig,
  defineConfig({
    root: new URL('../..', import.meta.url).pathname,
    test: {
      include: ['test/integration/**/*.test.ts'],
      globalSetup: ['test/integration/global-setup.ts'],
      fileParallelism: false,
      testTimeout: 120_000,
      hookTimeout: 240_000,
    },
  }),
);
