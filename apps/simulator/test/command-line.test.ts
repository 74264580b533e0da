/**
 * The `karpenter-ts-sim` command line.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { memoryIo } from '@karpenter-ts/cli';
import { run } from '../src/program.js';
import { OUTPUT_FORMAT } from '../src/index.js';
import { BOUTIQUE, scenarioYaml, writeScenario } from './support.js';

describe('karpenter-ts-sim', () => {
  it('validate says ok for a good scenario', async () => {
    const io = memoryIo();
    const path = writeScenario(scenarioYaml('events: []\n'));
    expect(await run(['validate', path], io)).toBe(0);
    expect(io.stdout).toMatch(
      /^ok: test: 2h, 0 event\(s\), \d+ object\(s\) from 1 manifest path\(s\), on azure, under karpenter\n$/,
    );
  });

  it('names a scenario it cannot read and why in words, with the error code, not a line', async () => {
    const path = writeScenario(scenarioYaml('events: []\n'));
    const missing = join(dirname(path), 'nope.yaml');
    const io = memoryIo();
    expect(await run(['validate', missing], io)).toBe(1);
    expect(io.stderr).toBe(`${missing}: cannot read: no such file (ENOENT)\n`);
    const folder = memoryIo();
    expect(await run(['run', dirname(path)], folder)).toBe(1);
    expect(folder.stderr).toBe(`${dirname(path)}: cannot read: a folder, not a file (EISDIR)\n`);
  });

  it('validate reports schema, region and manifest problems in one pass, each once, a region by its field', async () => {
    const path = writeScenario(`name: bad
duration: 2h
clouds:
  - {cloud: azure, region: eastus}
  - {cloud: aws, region: mars-1}
manifests: [${BOUTIQUE}, missing.yaml]
events:
  - {type: bogus, at: 1m}
`);
    const dir = dirname(path);
    const io = memoryIo();
    expect(await run(['validate', path], io)).toBe(1);
    expect(
      io.stderr
        .split('\n')
        .filter(Boolean)
        .map((l) => l.replace(path, 'S')),
    ).toEqual([
      'S:1 apiVersion: required',
      'S:1 kind: required',
      'S:5 clouds[1].region: unknown AWS region "mars-1" (the shipped AWS catalog has zone data for 3 regions only: us-east-1, us-east-2, us-west-2)',
      `S:6 manifests[1]: ${join(dir, 'missing.yaml')}: no such file or folder`,
      'S:8 events[0].type: must be one of "replicas", "replicasCurve", "jobs", "trace", "spotInterruptions", "capacityError", "nodePoolChange", "nodeClassChange", "nodeFailure"; got "bogus"',
    ]);
  });

  it('prints one line per problem and exits 1, running nothing', async () => {
    const io = memoryIo();
    const path = writeScenario(
      scenarioYaml('events:\n  - {type: replicas, at: -1m, workload: frontend, replicas: 2}\n'),
    );
    expect(await run(['run', path], io)).toBe(1);
    expect(io.stderr).toMatch(
      /scenario\.yaml:8 events\[0\]\.at: -1m is before time 0 \(the scenario starts at 0s\)\n$/,
    );
    expect(io.stdout).toBe('');
  });

  it('runs a scenario on the clouds it is asked for and prints the JSON', async () => {
    const io = memoryIo();
    const path = writeScenario(
      scenarioYaml('events: []\n', { duration: '30m', manifests: [BOUTIQUE] }),
    );
    expect(
      await run(
        [
          'run',
          path,
          '--cloud',
          'aws:us-east-1',
          '--json',
          '--no-workers',
          '--quiet',
          '--solver',
          'ts',
        ],
        io,
      ),
    ).toBe(0);
    const output = JSON.parse(io.stdout);
    expect(output.format).toBe(OUTPUT_FORMAT);
    expect(output.runs.map((r: { id: string }) => r.id)).toEqual(['karpenter/aws/us-east-1']);
    expect(output.runs[0].samples).toHaveLength(7);
  });

  it('runs under the --seed given as it would with that seed in the file, spot interruption times included', async () => {
    const scenario = (seed: string) =>
      writeScenario(
        scenarioYaml(
          `${seed}clouds: [{cloud: aws, region: us-east-1}]
events:
  - {type: spotInterruptions, ratePerHour: 12}
`,
          { duration: '30m' },
        ),
      );
    const json = async (args: string[]) => {
      const io = memoryIo();
      expect(
        await run(['run', ...args, '--json', '--no-workers', '-q', '--solver', 'ts'], io),
      ).toBe(0);
      const output = JSON.parse(io.stdout);
      delete output.scenario.file;
      return output;
    };
    const flagged = await json([scenario(''), '--seed', '7']);
    expect(flagged.scenario.seed).toBe(7);
    expect(flagged).toEqual(await json([scenario('seed: 7\n')]));
    const drawn = (o: { runs: { events: { type: string; t: number }[] }[] }) =>
      o.runs[0]!.events.filter((e) => e.type === 'scenario').map((e) => e.t);
    expect(drawn(flagged)).not.toEqual(drawn(await json([scenario('')])));
  });

  it('refuses a --seed that is not an integer 0..4294967295 as a usage error', async () => {
    const io = memoryIo();
    const path = writeScenario(scenarioYaml('events: []\n'));
    expect(await run(['run', path, '--seed', '-1'], io)).toBe(2);
    expect(io.stderr).toBe(
      'karpenter-ts-sim: error: --seed: expected an integer 0..4294967295, got "-1"\n',
    );
  });

  it('says when --duration is longer than the scenario, and runs the scenario duration', async () => {
    const io = memoryIo();
    const path = writeScenario(scenarioYaml('events: []\n', { duration: '30m' }));
    expect(
      await run(['run', path, '--duration', '2h', '--json', '--no-workers', '--solver', 'ts'], io),
    ).toBe(0);
    expect(io.stderr).toContain(
      "karpenter-ts-sim: --duration 2h is longer than the scenario's duration (30m): running 30m; raise the scenario's duration to run longer\n",
    );
    expect(JSON.parse(io.stdout).runs[0].samples).toHaveLength(7);
    const shorter = memoryIo();
    expect(
      await run(['run', path, '--duration', '10m', '--no-workers', '--solver', 'ts'], shorter),
    ).toBe(0);
    expect(shorter.stderr).not.toContain('longer than');
  });

  it('refuses an --out folder it cannot write before running anything', async () => {
    const io = memoryIo();
    const path = writeScenario(scenarioYaml('events: []\n', { duration: '30m' }));
    const out = join(dirname(path), 'scenario.yaml', 'results');
    expect(await run(['run', path, '--out', out, '--no-workers'], io)).toBe(1);
    expect(io.stderr).toBe(
      `karpenter-ts-sim: error: --out ${out}: cannot write to this folder (ENOTDIR)\n`,
    );
    expect(io.stdout).toBe('');
  });

  it('names the files it wrote once, with one slash, when --out ends with one', async () => {
    const io = memoryIo();
    const path = writeScenario(scenarioYaml('events: []\n', { duration: '30m' }));
    const out = join(dirname(path), 'results');
    expect(await run(['run', path, '--out', `${out}/`, '--no-workers', '--solver', 'ts'], io)).toBe(
      0,
    );
    expect(io.stderr).toContain(
      `karpenter-ts-sim: wrote ${out}/result.json, samples.csv, nodes.csv, events.csv`,
    );
  });

  it('refuses a --report file in a folder it cannot make before running anything', async () => {
    const io = memoryIo();
    const path = writeScenario(scenarioYaml('events: []\n', { duration: '30m' }));
    const report = join(path, 'report.html');
    expect(await run(['run', path, '--report', report, '--no-workers'], io)).toBe(1);
    expect(io.stderr).toBe(
      `karpenter-ts-sim: error: --report ${report}: cannot write this file (ENOTDIR)\n`,
    );
    expect(io.stdout).toBe('');
  });

  // Node's recursive mkdir never settles under /proc (it hung here before).
  it.runIf(existsSync('/proc/self'))(
    'refuses an --out or -o path under /proc at once, with the reason, instead of hanging',
    async () => {
      const path = writeScenario(scenarioYaml('events: []\n', { duration: '30m' }));
      const io = memoryIo();
      expect(await run(['run', path, '--out', '/proc/x/results', '--no-workers'], io)).toBe(1);
      expect(io.stderr).toBe(
        'karpenter-ts-sim: error: --out /proc/x/results: cannot write to this folder (ENOENT)\n',
      );
      const report = memoryIo();
      expect(await run(['report', path, '-o', '/proc/x/report.html'], report)).toBe(1);
      expect(report.stderr).toBe(
        'karpenter-ts-sim: error: -o /proc/x/report.html: cannot write this file (ENOENT)\n',
      );
    },
  );

  it('refuses an unknown cloud as a usage error', async () => {
    const io = memoryIo();
    const path = writeScenario(scenarioYaml('events: []\n'));
    expect(await run(['run', path, '--cloud', 'gcp'], io)).toBe(2);
    expect(io.stderr).toContain('--cloud: expected one of azure, aws, sim');
  });

  it('prints the scenario schema', async () => {
    const io = memoryIo();
    expect(await run(['schema'], io)).toBe(0);
    expect(JSON.parse(io.stdout).title).toBe('karpenter-ts-sim scenario');
  });
});
