#!/usr/bin/env node
// The `karpenter-ts-sim` bin. It is committed (unlike dist/) so `npm ci` can link it into
// node_modules/.bin before anything is built; it runs the compiled program in dist/.
import { existsSync } from 'node:fs';
import process from 'node:process';
import { URL } from 'node:url';

const main = new URL('../dist/main.js', import.meta.url);
if (!existsSync(main)) {
  process.stderr.write(
    'karpenter-ts-sim: error: the simulator is not built yet: run "npm run build" in the repository root\n',
  );
  process.exit(1);
}
await import(main.href);
