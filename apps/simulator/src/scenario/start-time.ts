/**
 * The scenario's `start`: an ISO 8601 time, read as `Date.parse` reads it, except that a calendar
 * date that does not exist (2026-02-30, 2025-04-31) is refused: V8 rolls such a day forward into
 * the next month, which would silently move every budget schedule of the run.
 */

/**
 * `text` as epoch milliseconds, or the problem with it (a message for the `start` field):
 * not a time `Date.parse` reads, or a day past the end of its month.
 */
export function parseStartTime(text: string): number | { readonly problem: string } {
  const ms = Date.parse(text);
  if (Number.isNaN(ms)) return { problem: `not an ISO 8601 time: ${JSON.stringify(text)}` };
  const date = /^(\d{4})-(\d{2})-(\d{2})/.exec(text);
  if (date !== null) {
    const [year, month, day] = [Number(date[1]), Number(date[2]), Number(date[3])];
    // Day 0 of the next month is the last day of this one.
    const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
    if (day > daysInMonth)
      return {
        problem: `${JSON.stringify(text)} is not a date: ${date[1]}-${date[2]} has ${daysInMonth} days`,
      };
  }
  return ms;
}
