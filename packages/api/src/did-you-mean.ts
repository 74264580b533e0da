/**
 * The "did you mean" hint for a misspelt name: the closest known name by edit distance.
 */
import { closestMatch } from 'leven';

/**
 * The name in `known` closest to `name` (Levenshtein distance, ignoring case), or undefined when
 * none is within max(2, a quarter of `name`'s length) edits: far-off guesses mislead more than
 * they help. `nodeselector` → `nodeSelector`, `opertor` → `operator`, `bananas` → undefined.
 */
export function didYouMean(name: string, known: Iterable<string>): string | undefined {
  const byLower = new Map<string, string>();
  for (const k of known) if (k !== name) byLower.set(k.toLowerCase(), k);
  const match = closestMatch(name.toLowerCase(), [...byLower.keys()], {
    maxDistance: Math.max(2, Math.floor(name.length / 4)),
  });
  return match === undefined ? undefined : byLower.get(match);
}
