// Node module hooks that run the controller from its TypeScript sources in a child process
// (the in-process suite gets this from vitest): `.ts` files are stripped of types with
// rolldown's transformer (already installed with vitest), and the `./x.js` specifiers of our
// ESM sources resolve to `./x.ts`. Workspace packages resolve to their sources through the
// `@karpenter-ts/source` export condition, which the parent passes with `--conditions`.
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { transformSync } from 'rolldown/experimental';

export async function resolve(specifier, context, next) {
  try {
    return await next(specifier, context);
  } catch (err) {
    const relative = specifier.startsWith('.') || specifier.startsWith('/');
    if (err?.code !== 'ERR_MODULE_NOT_FOUND' || !relative || !specifier.endsWith('.js')) throw err;
    return next(`${specifier.slice(0, -3)}.ts`, context);
  }
}

export async function load(url, context, next) {
  if (!url.startsWith('file:') || !url.endsWith('.ts')) return next(url, context);
  const file = fileURLToPath(url);
  const out = transformSync(file, await readFile(file, 'utf8'));
  if (out.errors.length > 0) {
    throw new Error(`${file}: ${out.errors.map((e) => e.message).join('; ')}`);
  }
  return { format: 'module', source: out.code, shortCircuit: true };
}
