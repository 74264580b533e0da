/**
 * `node dist/profile-summary.js <file.cpuprofile> [rows]`: summarizes a V8 CPU profile (from
 * `node --cpu-prof` or the inspector) as self time by file, self time by function and inclusive
 * time by function (each function counted once per sample, so recursion is not double counted).
 * Shares are of all samples, idle and garbage collection included.
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

function shortUrl(url: string): string {
  return url.replace(/.*\/(packages|node_modules|benchmarks)\//, '$1/');
}

function main(): void {
  const file = process.argv[2];
  if (file === undefined) throw new Error('usage: profile-summary <file.cpuprofile> [rows]');
  const rows = Number(process.argv[3] ?? 40);
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const sampled = new Map<number, number>();
  profile.samples.forEach((id, i) =>
    sampled.set(id, (sampled.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)),
  );
  let total = 0;
  for (const t of sampled.values()) total += t;
  const fn = (n: ProfileNode): string =>
    `${n.callFrame.functionName || '(anonymous)'} ${shortUrl(n.callFrame.url)}:${n.callFrame.lineNumber + 1}`;
  const self = new Map<string, number>();
  const byFile = new Map<string, number>();
  const inclusive = new Map<string, number>();
  const add = (m: Map<string, number>, k: string, t: number): void => {
    m.set(k, (m.get(k) ?? 0) + t);
  };
  for (const [id, t] of sampled) {
    const n = nodes.get(id) as ProfileNode;
    add(self, fn(n), t);
    add(byFile, shortUrl(n.callFrame.url) || n.callFrame.functionName, t);
    const seen = new Set<string>();
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const k = fn(nodes.get(cur) as ProfileNode);
      if (seen.has(k)) continue;
      seen.add(k);
      add(inclusive, k, t);
    }
  }
  const print = (title: string, m: Map<string, number>): void => {
    console.log(`\n== ${title} (of ${(total / 1e6).toFixed(2)} s sampled)`);
    for (const [k, t] of [...m].sort((a, b) => b[1] - a[1]).slice(0, rows)) {
      console.log(
        `${(t / 1e6).toFixed(3).padStart(8)} s ${((100 * t) / total).toFixed(1).padStart(5)}%  ${k}`,
      );
    }
  };
  print('self time by file', byFile);
  print('self time by function', self);
  print('inclusive time by function', inclusive);
}

main();
