/**
 * Node's options for a function of `memoryMb`. A function that handles large documents gets an
 * explicit V8 heap limit a little under its memory: left to its defaults V8 sizes the heap from
 * the machine, so it can let garbage of a finished document pile up past what the function may
 * hold, or stop short of what one large document needs. With the limit, V8 collects before the
 * process outgrows the function, and the ingest worker's memory budget (memory-budget.ts) keeps
 * what is live below it. The large-file benchmark runs its worker with the same options.
 */
export const RUNTIME_RESERVE_MB = 450;

export function nodeOptions(memoryMb: number): string {
  const heap = memoryMb >= 1024 ? ` --max-old-space-size=${memoryMb - RUNTIME_RESERVE_MB}` : "";
  return `--enable-source-maps${heap}`;
}
