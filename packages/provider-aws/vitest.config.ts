import { defineConfig, mergeConfig } from 'vitest/config';
import { sharedConfig } from '../../vitest.shared.ts';

// The AWS emulator's moto venv is installed (or found in ~/.cache/karpenter-ts) before the tests.
export default mergeConfig(
  sharedConfig,
  defineConfig({ test: { globalSetup: ['test/moto-setup.ts'] } }),
);
