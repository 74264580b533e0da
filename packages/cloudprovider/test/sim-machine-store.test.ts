import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  FileMachineStore,
  NodeClaimNotFoundError,
  SimCloudProvider,
  SimStateFileName,
  fakeInstanceTypes,
} from '../src/index.js';
import { ManualClock, nodeClaim } from './builders.js';

const dirs: string[] = [];
function stateDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'sim-store-'));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A sim cloud on the machines in `dir`: a new one is what a restarted controller builds. */
const cloudOn = (dir: string, clock?: ManualClock) =>
  new SimCloudProvider({
    instanceTypes: fakeInstanceTypes(5),
    store: new FileMachineStore(dir),
    ...(clock === undefined ? {} : { clock }),
  });

describe('SimCloudProvider with a FileMachineStore (machines outlive the process)', () => {
  it('a restarted cloud lists the machines launched before the restart', async () => {
    const dir = stateDir();
    const first = cloudOn(dir);
    const a = await first.create(nodeClaim({ name: 'a' }));
    const b = await first.create(nodeClaim({ name: 'b' }));
    const restarted = cloudOn(dir);
    expect((await restarted.list()).map((nc) => nc.status?.providerID)).toEqual([
      a.status?.providerID,
      b.status?.providerID,
    ]);
    expect((await restarted.get(a.status?.providerID ?? '')).metadata.name).toBe('a');
    expect(restarted.instances().map((i) => i.nodeClaimName)).toEqual(['a', 'b']);
  });

  it("a restarted cloud reports each machine's launch time as its creationTimestamp", async () => {
    const dir = stateDir();
    const clock = new ManualClock();
    const launchedAt = new Date(clock.now());
    await cloudOn(dir, clock).create(nodeClaim({ name: 'old' }));
    clock.advanceSeconds(3600);
    const [listed] = await cloudOn(dir, clock).list();
    expect(listed?.metadata.creationTimestamp).toEqual(launchedAt);
  });

  it('relaunching a NodeClaim after a restart finds its machine instead of launching a second', async () => {
    const dir = stateDir();
    const launched = await cloudOn(dir).create(nodeClaim({ name: 'crashed-mid-launch' }));
    const restarted = cloudOn(dir);
    const again = await restarted.create(nodeClaim({ name: 'crashed-mid-launch' }));
    expect(again.status?.providerID).toBe(launched.status?.providerID);
    expect(restarted.instances()).toHaveLength(1);
  });

  it('two clouds on one store see each other’s launches and terminations', async () => {
    const dir = stateDir();
    const leader = cloudOn(dir);
    const follower = cloudOn(dir);
    expect(await follower.list()).toEqual([]);
    const nc = await leader.create(nodeClaim({ name: 'x' }));
    expect((await follower.list()).map((m) => m.metadata.name)).toEqual(['x']);
    await follower.delete(nc);
    expect(await leader.list()).toEqual([]);
    await expect(leader.delete(nc)).rejects.toBeInstanceOf(NodeClaimNotFoundError);
  });

  it('writes one JSON file and leaves no temporary files behind', async () => {
    const dir = stateDir();
    const cloud = cloudOn(dir);
    await cloud.create(nodeClaim({ name: 'a' }));
    await cloud.create(nodeClaim({ name: 'b' }));
    expect(readdirSync(dir)).toEqual([SimStateFileName]);
    const state = JSON.parse(readFileSync(join(dir, SimStateFileName), 'utf8')) as {
      version: number;
      machines: { instance: { nodeClaimName: string } }[];
    };
    expect(state.version).toBe(1);
    expect(state.machines.map((m) => m.instance.nodeClaimName)).toEqual(['a', 'b']);
  });

  it('raises an error naming the file when the state is not ours', async () => {
    const dir = stateDir();
    writeFileSync(join(dir, SimStateFileName), '{"machines": 3}');
    await expect(cloudOn(dir).list()).rejects.toThrow(
      `sim cloud state ${join(dir, SimStateFileName)}: expected {"version": 1, "machines": [...]}`,
    );
    writeFileSync(join(dir, SimStateFileName), '{not json');
    await expect(cloudOn(dir).list()).rejects.toThrow(/sim cloud state .*sim-cloud\.json: /);
  });

  it('without a store keeps machines in memory only', async () => {
    const memory = new SimCloudProvider({ instanceTypes: fakeInstanceTypes(5) });
    await memory.create(nodeClaim({ name: 'a' }));
    expect(new SimCloudProvider({ instanceTypes: fakeInstanceTypes(5) }).instances()).toEqual([]);
  });
});
