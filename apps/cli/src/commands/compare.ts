import type { Command } from 'commander';
import type { Runtime } from '../program.js';

export function registerCompare(_program: Command, _runtime: Runtime): void {}
