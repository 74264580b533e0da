/**
 * Object names the way the Kubernetes controllers make them, but deterministic: the random parts
 * (the 5-character pod suffix, the pod-template-hash) are derived from a hash of what they name,
 * so the same input always gives the same names (a simulation report can be diffed).
 *
 * Upstream: pods of a ReplicaSet, Job or DaemonSet are `<owner>-<5 random chars>`; a
 * Deployment's ReplicaSet is `<deployment>-<pod-template-hash>` (FNV-32a of the pod template,
 * encoded with the same alphabet); StatefulSet pods are `<statefulset>-<ordinal>`; a CronJob's
 * Job is `<cronjob>-<scheduled time in minutes since the Unix epoch>`.
 */
import { createHash } from 'node:crypto';

/** The alphabet Kubernetes uses for generated name suffixes (no vowels, no confusable digits). */
const SAFE_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

/** FNV-1a, 32 bits, of the UTF-8 bytes of `text`. */
export function fnv32a(text: string): number {
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(text, 'utf8')) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash >>> 0;
}

/** Encodes a 32-bit number with the safe alphabet (like `rand.SafeEncodeString` of its decimal form). */
export function safeEncode(value: number): string {
  return [...String(value >>> 0)]
    .map((digit) => SAFE_ALPHABET[Number(digit) % SAFE_ALPHABET.length])
    .join('');
}

/** The `pod-template-hash` label value of a Deployment's ReplicaSet for `template` (any JSON value). */
export function podTemplateHash(template: unknown): string {
  return safeEncode(fnv32a(JSON.stringify(template ?? {})));
}

/**
 * Makes `<owner>-<5 chars>` names that are unique per generator, deterministic in the order they
 * are asked for. One generator per owner object.
 */
export class SuffixNamer {
  private readonly used = new Set<string>();
  private counter = 0;
  /** `separator` goes between `owner` and the suffix: `-`, or `''` for a `generateName` prefix. */
  constructor(
    private readonly owner: string,
    private readonly separator = '-',
  ) {}

  /** The next name; never repeats for this generator. */
  next(): string {
    for (;;) {
      let hash = fnv32a(`${this.owner}#${this.counter++}`);
      let suffix = '';
      for (let i = 0; i < 5; i++) {
        suffix += SAFE_ALPHABET[hash % SAFE_ALPHABET.length];
        hash = Math.floor(hash / SAFE_ALPHABET.length);
      }
      const name = `${this.owner}${this.separator}${suffix}`;
      if (!this.used.has(name)) {
        this.used.add(name);
        return name;
      }
    }
  }
}

/** A stable UUID-shaped uid for a namespaced object name (deterministic, unlike the apiserver's). */
export function stableUid(kind: string, namespace: string, name: string): string {
  const hex = createHash('sha1').update(`${kind}/${namespace}/${name}`).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** The apiserver keeps at most this many characters of `generateName` (63 minus the 5-char suffix). */
const MAX_GENERATE_NAME_PREFIX = 58;

/**
 * Names for objects that set only `metadata.generateName`, as the apiserver names them on
 * create: the prefix (cut to 58 characters) followed by 5 characters of the safe alphabet. The
 * apiserver's suffix is random; here it is derived from the prefix and how many objects with that
 * prefix came before, so the same input gives the same names. Each call gives a new name.
 */
export class GeneratedNames {
  private readonly namers = new Map<string, SuffixNamer>();

  /** The name of the next object with this `generateName`. */
  next(generateName: string): string {
    const prefix = generateName.slice(0, MAX_GENERATE_NAME_PREFIX);
    let namer = this.namers.get(prefix);
    if (!namer) this.namers.set(prefix, (namer = new SuffixNamer(prefix, '')));
    return namer.next();
  }
}
