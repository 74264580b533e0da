/**
 * Counted nouns for messages: `1 pod`, `2 pods`, `1 instance type`, `0 instance types`.
 */

/** `count` and the noun, the plural (default noun + `s`) unless count is 1. */
export function counted(count: number, noun: string, plural = `${noun}s`): string {
  return `${count} ${count === 1 ? noun : plural}`;
}
