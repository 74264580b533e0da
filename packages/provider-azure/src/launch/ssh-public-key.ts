/**
 * Checks of `SSH_PUBLIC_KEY`, the key put on every node's admin user. Two rules: the value is an
 * OpenSSH public key line (`<type> <base64 key blob> [comment]`, as in `~/.ssh/id_ed25519.pub`),
 * and the key is one Azure VMs accept. Azure's VM API takes only RSA keys of 2048 bits or more and
 * Ed25519 keys (learn.microsoft.com, "Create and manage SSH keys for authentication to a Linux VM
 * in Azure": ECDSA is not supported), so other well-formed OpenSSH keys are refused at start, not
 * at every launch.
 */

/** Key types of OpenSSH public key lines this check recognizes (first field of the line). */
export const OPENSSH_PUBLIC_KEY_TYPES: readonly string[] = [
  'ssh-rsa',
  'ssh-ed25519',
  'ecdsa-sha2-nistp256',
  'ecdsa-sha2-nistp384',
  'ecdsa-sha2-nistp521',
  'sk-ssh-ed25519@openssh.com',
  'sk-ecdsa-sha2-nistp256@openssh.com',
];

/** Key types Azure VMs accept in `osProfile.linuxConfiguration.ssh.publicKeys`. */
export const AZURE_SSH_KEY_TYPES: readonly string[] = ['ssh-rsa', 'ssh-ed25519'];

/** Smallest RSA modulus Azure VMs accept, in bits. */
export const AZURE_MIN_RSA_BITS = 2048;

/** Reads the SSH wire-format strings (uint32 big-endian length, then bytes) of a key blob. */
function readStrings(blob: Buffer, count: number): Buffer[] | undefined {
  const out: Buffer[] = [];
  let at = 0;
  for (let i = 0; i < count; i++) {
    if (at + 4 > blob.length) return undefined;
    const len = blob.readUInt32BE(at);
    if (at + 4 + len > blob.length) return undefined;
    out.push(blob.subarray(at + 4, at + 4 + len));
    at += 4 + len;
  }
  return out;
}

/** Bit length of an SSH mpint (big-endian, possibly with a leading zero byte). */
function mpintBits(n: Buffer): number {
  let i = 0;
  while (i < n.length && n[i] === 0) i++;
  if (i === n.length) return 0;
  return (n.length - i - 1) * 8 + (32 - Math.clz32(n[i] as number));
}

/**
 * What is wrong with `line` as `SSH_PUBLIC_KEY`, as a phrase that follows the variable's name
 * ("must be an OpenSSH public key line ...", "is an ecdsa-sha2-nistp256 key; ..."), or undefined
 * when it is an OpenSSH public key line of a type Azure VMs accept (`ssh-rsa` of 2048 bits or
 * more, `ssh-ed25519`). The base64 blob must decode and name the same key type as the line's first
 * field (a truncated or mangled paste fails here). Never raises.
 */
export function sshPublicKeyProblem(line: string): string | undefined {
  const format =
    'must be an OpenSSH public key line "<type> <base64 key> [comment]" (as in ~/.ssh/id_ed25519.pub) ' +
    `of type ssh-rsa (${AZURE_MIN_RSA_BITS} bits or more) or ssh-ed25519`;
  const m = /^(\S+)\s+([A-Za-z0-9+/]+={0,2})(?:\s+.*)?$/s.exec(line.trim());
  const type = m?.[1];
  const b64 = m?.[2];
  if (type === undefined || b64 === undefined || !OPENSSH_PUBLIC_KEY_TYPES.includes(type))
    return format;
  const mangled = `${format}; its base64 key does not decode to a ${type} key (cut short or mangled when copied?)`;
  const blob = b64.length % 4 === 0 ? Buffer.from(b64, 'base64') : undefined;
  const [name] = (blob && readStrings(blob, 1)) ?? [];
  if (blob === undefined || name?.toString('latin1') !== type) return mangled;
  if (!AZURE_SSH_KEY_TYPES.includes(type))
    return `is ${/^[aeiou]/.test(type) ? 'an' : 'a'} ${type} key; Azure VMs accept only ssh-rsa (${AZURE_MIN_RSA_BITS} bits or more) and ssh-ed25519 keys`;
  if (type === 'ssh-rsa') {
    const [, , modulus] = readStrings(blob, 3) ?? [];
    if (modulus === undefined) return mangled;
    const bits = mpintBits(modulus);
    if (bits < AZURE_MIN_RSA_BITS)
      return `is a ${bits}-bit ssh-rsa key; Azure VMs require RSA keys of ${AZURE_MIN_RSA_BITS} bits or more`;
  } else {
    const [, key] = readStrings(blob, 2) ?? [];
    if (key?.length !== 32) return mangled;
  }
  return undefined;
}
