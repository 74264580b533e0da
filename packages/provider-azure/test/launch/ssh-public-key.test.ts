// SSH_PUBLIC_KEY's rules: an OpenSSH public key line of a key type Azure VMs accept.
import { describe, expect, it } from 'vitest';
import { sshPublicKeyProblem } from '../../src/index.js';

/** Public keys made with ssh-keygen (private halves discarded). */
const ED25519_KEY =
  'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBkL7b4Wb0lQq3ZsQ0vVt9YrHq1u2m9yC0mF0tN2fYxZ admin@example';
const RSA_2048_KEY =
  'ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQDOWkewVNzXFjGlp5yC/wBE0OVcbcH87XkNBMpzqTOP1qQL7a1ns/b+pXRRaJxH7AwHM7V3ASkcNZDpul1kidFgIy2rWq6ULZEMWqR5QGJq+AA8gwXU9AXxaR0Bncp4W9zVUWSSA+E7f/1Y8Sz0LLftjCU104doy7AFGJQhPOhoUvMWTbAoZvWNGt8t48NeHaZq18FanGDE2GuwuiB2UWH6cpYbWGmPzsc40QuLX95Q3yXY58lx7zlvBj7/0i0wN6A9kfn//NCUQgMKc7IzKV9Uw1WJyyrLRL8nChBDT+jtMhdgVZwvQ4ztjr3m71Dgopz/hAiGRAjK8WnCUcIhJEoN ci@example';
const RSA_1024_KEY =
  'ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAAAgQDadB3rWHdQoOQklGge02OBiFSkkQKnR+xIh6vjZs3/Om5uZLvKUuewToOGPhAJumo4C0WAeaoPvIoMaiPNZRtSvBIzqpiX33BlU+rPjLANjuEsweK7QyhThFeH/hVRzw+DvEW5VBiOLX8DiFFfkZB/MFwz2v1HzWkMDBYJQz4kjQ== short';
const ECDSA_KEY =
  'ecdsa-sha2-nistp256 AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTYAAABBBGrYRNrBFcd/BxjhjS4psmKhG4FeRoP14m1l5Zna2Fh2a0hpS5UCEOW2VpNboPdB9gEZqHJw9PoxWTvb5AkexBE= ec';

/** The problem with `key`, or '' when it is accepted. */
const problem = (key: string): string => sshPublicKeyProblem(key) ?? '';

describe('sshPublicKeyProblem', () => {
  it('accepts ssh-ed25519 keys and ssh-rsa keys of 2048 bits, with or without a comment', () => {
    expect(problem(ED25519_KEY)).toBe('');
    expect(problem(RSA_2048_KEY)).toBe('');
    expect(problem(RSA_2048_KEY.replace(/ ci@example$/, ''))).toBe('');
  });

  it('refuses what is no OpenSSH public key line, naming the format and only the key types Azure takes', () => {
    for (const bad of [
      'hello',
      'AAAAC3NzaC1lZDI1NTE5',
      'ssh-dss AAAAB3NzaC1kc3M=',
      'ssh-ed25519 not*base64',
    ]) {
      const message = problem(bad);
      expect(message).toMatch(
        /^must be an OpenSSH public key line "<type> <base64 key> \[comment\]".*of type ssh-rsa \(2048 bits or more\) or ssh-ed25519/,
      );
      // Listing key types that are refused a line later would send the user the wrong way.
      expect(message).not.toMatch(/ecdsa|sk-ssh/);
    }
  });

  it('refuses a key whose base64 is cut short or names another key type', () => {
    const [type, blob] = ED25519_KEY.split(' ') as [string, string];
    for (const bad of [
      `${type} AAAA`,
      `${type} ${blob.slice(0, 40)}`, // cut short, still a multiple of 4 characters
      `${type} ${blob.slice(0, 41)}`, // cut short, not a multiple of 4
      `ssh-rsa ${blob}`, // an Ed25519 blob under the RSA type
    ])
      expect(problem(bad)).toMatch(
        /^must be an OpenSSH public key line .*its base64 key does not decode to a ssh-(ed25519|rsa) key/,
      );
  });

  it('refuses well-formed keys Azure VMs do not take: ECDSA, security keys, RSA under 2048 bits', () => {
    expect(problem(ECDSA_KEY)).toContain(
      'is an ecdsa-sha2-nistp256 key; Azure VMs accept only ssh-rsa (2048 bits or more) and ssh-ed25519 keys',
    );
    // A FIDO security key: the Ed25519 point and the application name of sk-ssh-ed25519@openssh.com.
    const sshString = (b: Buffer): Buffer => Buffer.concat([Buffer.from([0, 0, 0, b.length]), b]);
    const skBlob = Buffer.concat([
      sshString(Buffer.from('sk-ssh-ed25519@openssh.com')),
      sshString(Buffer.alloc(32, 7)),
      sshString(Buffer.from('ssh:')),
    ]).toString('base64');
    expect(problem(`sk-ssh-ed25519@openssh.com ${skBlob} yubikey`)).toContain(
      'is a sk-ssh-ed25519@openssh.com key; Azure VMs accept only',
    );
    expect(problem(RSA_1024_KEY)).toContain(
      'is a 1024-bit ssh-rsa key; Azure VMs require RSA keys of 2048 bits or more',
    );
  });
});
