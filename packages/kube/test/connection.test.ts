import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { connect } from '../src/index.js';

/**
 * A kubeconfig whose one context points at `server`; `suffix` tells its cluster, user and
 * context names apart from another file's (a second file of a merged list).
 */
function kubeconfigText(server: string, suffix = ''): string {
  return [
    'apiVersion: v1',
    'kind: Config',
    `clusters: [{name: c${suffix}, cluster: {server: "${server}"}}]`,
    `users: [{name: u${suffix}, user: {token: t}}]`,
    `contexts: [{name: x${suffix}, context: {cluster: c${suffix}, user: u${suffix}}}]`,
    `current-context: x${suffix}`,
  ].join('\n');
}

let home: string;

beforeEach(() => {
  // A machine with no kubeconfig anywhere and outside a cluster.
  home = mkdtempSync(join(tmpdir(), 'kube-connect-home.'));
  vi.stubEnv('HOME', home);
  vi.stubEnv('KUBECONFIG', undefined);
  vi.stubEnv('KUBERNETES_SERVICE_HOST', undefined);
  vi.stubEnv('KUBERNETES_SERVICE_PORT', undefined);
});

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('connect', () => {
  it('raises a clear error when there is no kubeconfig and no in-cluster config, instead of falling back to localhost:8080', () => {
    expect(() => connect()).toThrow(
      'no kubeconfig: pass --kubeconfig, set KUBECONFIG, or run in a cluster',
    );
  });

  it('treats an empty KUBECONFIG as unset', () => {
    vi.stubEnv('KUBECONFIG', '');
    expect(() => connect()).toThrow(/^no kubeconfig:/);
  });

  it('does not take the in-cluster config when only half of its environment is set', () => {
    vi.stubEnv('KUBERNETES_SERVICE_HOST', '10.0.0.1');
    expect(() => connect()).toThrow(/^no kubeconfig:/);
  });

  it('uses ~/.kube/config when it exists', () => {
    mkdirSync(join(home, '.kube'));
    writeFileSync(join(home, '.kube', 'config'), kubeconfigText('https://home.example:6443'));
    expect(connect().server).toBe('https://home.example:6443');
  });

  it('prefers KUBECONFIG over ~/.kube/config', () => {
    mkdirSync(join(home, '.kube'));
    writeFileSync(join(home, '.kube', 'config'), kubeconfigText('https://home.example:6443'));
    const file = join(home, 'other-kubeconfig');
    writeFileSync(file, kubeconfigText('https://env.example:6443/'));
    vi.stubEnv('KUBECONFIG', file);
    expect(connect().server).toBe('https://env.example:6443');
  });

  it("merges the files of a KUBECONFIG list as kubectl does: the first file's current context wins", () => {
    const first = join(home, 'first');
    const second = join(home, 'second');
    writeFileSync(first, kubeconfigText('https://first.example:6443'));
    writeFileSync(second, kubeconfigText('https://second.example:6443', '2'));
    vi.stubEnv('KUBECONFIG', `${first}:${second}`);
    expect(connect().server).toBe('https://first.example:6443');
    // A first file without a current context takes the next one's.
    writeFileSync(
      first,
      kubeconfigText('https://first.example:6443').replace('current-context: x', ''),
    );
    expect(connect().server).toBe('https://second.example:6443');
  });

  it('merges a list of kubeconfigs it is given (a KUBECONFIG value passed on), first context winning', () => {
    const first = join(home, 'a');
    const second = join(home, 'b');
    writeFileSync(first, kubeconfigText('https://a.example:6443'));
    writeFileSync(second, kubeconfigText('https://b.example:6443', '2'));
    expect(connect({ kubeconfig: [first, second] }).server).toBe('https://a.example:6443');
    expect(() =>
      connect({ kubeconfig: [first, join(home, 'gone')], kubeconfigSource: 'K' }),
    ).toThrow(`kubeconfig ${join(home, 'gone')} (K) cannot be read: no such file`);
  });

  it('uses the kubeconfig it is given, whatever the environment says', () => {
    const file = join(home, 'given');
    writeFileSync(file, kubeconfigText('https://given.example:6443'));
    vi.stubEnv('KUBECONFIG', join(home, 'missing'));
    expect(connect({ kubeconfig: file }).server).toBe('https://given.example:6443');
  });

  it('names the given kubeconfig and the problem when it does not exist', () => {
    const missing = join(home, 'missing');
    expect(() => connect({ kubeconfig: missing })).toThrow(
      new Error(`kubeconfig ${missing} cannot be read: no such file`),
    );
  });

  it('names the kubeconfig and where it came from when the file in KUBECONFIG does not exist', () => {
    const missing = join(home, 'missing');
    vi.stubEnv('KUBECONFIG', missing);
    expect(() => connect()).toThrow(
      new Error(`kubeconfig ${missing} (KUBECONFIG) cannot be read: no such file`),
    );
  });

  it('says an empty kubeconfig has no clusters instead of failing on its missing fields', () => {
    vi.stubEnv('KUBECONFIG', '/dev/null');
    expect(() => connect()).toThrow(new Error('kubeconfig /dev/null (KUBECONFIG) has no clusters'));
    const empty = join(home, 'empty');
    writeFileSync(empty, '# nothing yet\n');
    expect(() => connect({ kubeconfig: empty, kubeconfigSource: '--kubeconfig' })).toThrow(
      new Error(`kubeconfig ${empty} (--kubeconfig) has no clusters`),
    );
  });

  it('says a kubeconfig without a clusters list has no clusters', () => {
    const file = join(home, 'users-only');
    writeFileSync(file, 'apiVersion: v1\nkind: Config\nusers: [{name: u, user: {token: t}}]\n');
    expect(() => connect({ kubeconfig: file })).toThrow(
      new Error(`kubeconfig ${file} has no clusters`),
    );
  });

  it('names the kubeconfig and the line of a YAML syntax error, on one line', () => {
    const file = join(home, 'broken');
    writeFileSync(file, 'clusters:\n  - name: c\n   cluster: {server: x}\n');
    expect(() => connect({ kubeconfig: file })).toThrow(
      new RegExp(`^kubeconfig ${file} is not valid YAML: [^\\n]*\\(3:\\d+\\)$`),
    );
  });

  it("names the kubeconfig and the library's complaint about an invalid entry", () => {
    const file = join(home, 'nameless');
    writeFileSync(file, 'clusters: [{cluster: {server: "https://x.example"}}]\n');
    expect(() => connect({ kubeconfig: file })).toThrow(
      new Error(`kubeconfig ${file} is not valid: clusters[0].name is missing`),
    );
  });

  it('says which kubeconfig cannot be read when it is a directory', () => {
    expect(() => connect({ kubeconfig: home })).toThrow(
      new Error(`kubeconfig ${home} cannot be read: it is a directory`),
    );
  });
});
