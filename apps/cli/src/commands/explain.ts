import type { Command } from 'commander';
import type { Runtime } from '../program.js';

export function registerExplain(_program: Command, _runtime: Runtime): void {}
