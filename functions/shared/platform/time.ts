/** ISO 8601 UTC with milliseconds, the only timestamp format on the wire. */
export function nowIso(): string {
  return new Date().toISOString();
}
