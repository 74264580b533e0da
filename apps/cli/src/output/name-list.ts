/**
 * Lists of names in human output that stay readable at hundreds of entries: the first few, then
 * how many more (`"a", "b", "c", "d", "e" and 498 more`). Machine output (`-o json`) lists all.
 */

/** Names a list shows before it counts the rest. */
export const SHOWN_NAMES = 5;

/**
 * `names` double-quoted and comma-separated, the first `shown` (default {@link SHOWN_NAMES}) of
 * them, then ` and N more` when there are more.
 */
export function quotedNames(names: readonly string[], shown = SHOWN_NAMES): string {
  const head = names
    .slice(0, shown)
    .map((n) => `"${n}"`)
    .join(', ');
  return names.length > shown ? `${head} and ${names.length - shown} more` : head;
}
