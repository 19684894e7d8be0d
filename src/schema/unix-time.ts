/** Timestamps in responses are UNIX seconds (the spec). */
export function unixSeconds(date: Date): number;
export function unixSeconds(date: Date | null): number | null;
export function unixSeconds(date: Date | null): number | null {
  return date ? Math.floor(date.getTime() / 1000) : null;
}
