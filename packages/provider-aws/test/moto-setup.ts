// Installs moto into its cached venv once, before any test file starts an emulator: the first
// install on a machine takes about 2 minutes, longer than a test hook should wait.
import { ensureMoto } from '@karpenter-ts/aws-emulator';

export function setup(): void {
  ensureMoto();
}
