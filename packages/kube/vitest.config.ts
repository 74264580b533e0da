import { defineConfig, mergeConfig } from 'vitest/config';
import { sharedConfig } from '../../vitest.shared.ts';

// Unit tests only; the integration suite against a real control plane is
// test/integration/vitest.config.ts (`npm run test:integration`).
export default mergeConfig(
  sharedConfig,
  defineConfig({ test: { exclude: ['test/integration/**', '**/node_modules/**'] } }),
);
