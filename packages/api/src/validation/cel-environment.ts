/**
 * A CEL environment for Kubernetes `x-kubernetes-validations` rules, on @marcbachmann/cel-js.
 *
 * cel-js covers the CEL standard library and the `strings` extension functions the apiserver
 * enables (`split`, `lowerAscii`, `upperAscii`, `trim`, `indexOf`, `lastIndexOf`, `substring`,
 * `join`), plus macros `all`, `exists`, `exists_one`, `map`, `filter`, `has`. We add the
 * Kubernetes library functions it lacks and that CRD rules use: the regex library (`find`,
 * `findAll`), `replace`, `charAt`, `reverse`, and the list library (`isSorted`, `sum`, `min`,
 * `max`). Rules are parsed once and cached by text.
 */
import { Environment } from '@marcbachmann/cel-js';

type Program = (context: Record<string, unknown>) => unknown;

let environment: Environment | undefined;
const programs = new Map<string, Program>();

function celEnvironment(): Environment {
  if (environment) return environment;
  const env = new Environment({
    homogeneousAggregateLiterals: false,
    unlistedVariablesAreDyn: true,
  })
    .registerVariable('self', 'dyn')
    .registerVariable('oldSelf', 'dyn')
    .registerFunction('string.find(string): string', (s: string, re: string) => {
      const m = new RegExp(re).exec(s);
      return m ? m[0] : '';
    })
    .registerFunction('string.findAll(string): list<string>', (s: string, re: string) =>
      [...s.matchAll(new RegExp(re, 'g'))].map((m) => m[0]),
    )
    .registerFunction(
      'string.findAll(string, int): list<string>',
      (s: string, re: string, n: bigint) => {
        const all = [...s.matchAll(new RegExp(re, 'g'))].map((m) => m[0]);
        return n < 0n ? all : all.slice(0, Number(n));
      },
    )
    .registerFunction('string.replace(string, string): string', (s: string, a: string, b: string) =>
      s.split(a).join(b),
    )
    .registerFunction(
      'string.replace(string, string, int): string',
      (s: string, a: string, b: string, n: bigint) => {
        if (n < 0n) return s.split(a).join(b);
        let out = s;
        let from = 0;
        for (let i = 0n; i < n; i++) {
          const at = out.indexOf(a, from);
          if (at < 0) break;
          out = out.slice(0, at) + b + out.slice(at + a.length);
          from = at + b.length;
        }
        return out;
      },
    )
    .registerFunction(
      'string.charAt(int): string',
      (s: string, i: bigint) => [...s][Number(i)] ?? '',
    )
    .registerFunction('string.reverse(): string', (s: string) => [...s].reverse().join(''))
    .registerFunction('list.isSorted(): bool', (l: unknown[]) =>
      l.every((v, i) => i === 0 || compare(l[i - 1], v) <= 0),
    )
    .registerFunction('list.sum(): dyn', (l: unknown[]) =>
      l.reduce<unknown>(
        (a, b) => (typeof a === 'bigint' && typeof b === 'bigint' ? a + b : Number(a) + Number(b)),
        0n,
      ),
    )
    .registerFunction('list.min(): dyn', (l: unknown[]) => extreme(l, -1))
    .registerFunction('list.max(): dyn', (l: unknown[]) => extreme(l, 1));
  environment = env;
  return env;
}

function compare(a: unknown, b: unknown): number {
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  const x = Number(a);
  const y = Number(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

function extreme(l: unknown[], sign: number): unknown {
  if (l.length === 0) throw new Error('min/max of an empty list');
  return l.reduce((a, b) => (compare(b, a) * sign > 0 ? b : a));
}

/**
 * Parses (once) and returns the program for a rule.
 * @throws Error with the parser's message when the rule is not valid CEL for this environment.
 */
export function celProgram(rule: string): Program {
  let program = programs.get(rule);
  if (!program) {
    const parsed = celEnvironment().parse(rule);
    program = (context) => parsed(context);
    programs.set(rule, program);
  }
  return program;
}

/** Whether a rule reads `oldSelf` (a transition rule, evaluated only on update). */
export function isTransitionRule(rule: string): boolean {
  return /\boldSelf\b/.test(rule);
}
