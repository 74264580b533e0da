/**
 * The one form of every error that ends the binary before or during startup (bad options exit 2,
 * a failed start exits 1): a single line on stderr, `karpenter-ts-controller: error: <message>`.
 * Once running, failures are JSON log lines instead.
 */

/** The binary's name, the prefix of its fatal errors. */
export const ProgramName = 'karpenter-ts-controller';

/**
 * `message` as the binary's fatal error line (with its newline): a leading `error: ` (commander's
 * own prefix) is dropped and line breaks are folded into spaces, so the line has one prefix and
 * is one line.
 */
export function fatalErrorLine(message: string): string {
  const text = message
    .trim()
    .replace(/^error: /, '')
    .replace(/\s*\n\s*/g, ' ');
  return `${ProgramName}: error: ${text}\n`;
}

/** The fatal error line of a thrown value (an Error's message, else the value as text). */
export function fatalErrorLineOf(err: unknown): string {
  return fatalErrorLine(err instanceof Error ? err.message : String(err));
}
