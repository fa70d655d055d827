/**
 * Maps with at most `limit` calls in flight, results in input order. Fan-outs over user-sized
 * lists (a BATCH of 500 documents, 500 managed files to check) go through here so one job cannot
 * flood the SDK's connection pool or a table partition.
 */
export async function mapLimited<T, R>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await fn(items[index]!, index);
    }
  });
  await Promise.all(lanes);
  return results;
}

/**
 * A weighted semaphore: work declares what it will hold (bytes of memory, say) and runs once that
 * fits in the capacity alongside what is running. Requests are served in arrival order, so a large
 * one is not overtaken for ever by small ones; one larger than the whole capacity runs alone.
 */
export class WeightedSemaphore {
  private inUse = 0;
  private running = 0;
  private readonly waiting: { weight: number; grant: () => void }[] = [];

  constructor(readonly capacity: number) {}

  get used(): number {
    return this.inUse;
  }

  /**
   * Resolves with the release function once `weight` fits, or with null when `timeoutMs` passes
   * first (the caller then comes back later instead of holding an invocation).
   */
  acquire(weight: number, timeoutMs = Number.POSITIVE_INFINITY): Promise<(() => void) | null> {
    const granted = Math.max(0, Math.min(weight, this.capacity));
    return new Promise((resolve) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const request = {
        weight: granted,
        grant: () => {
          if (timer) clearTimeout(timer);
          this.inUse += granted;
          this.running += 1;
          let released = false;
          resolve(() => {
            if (released) return;
            released = true;
            this.inUse -= granted;
            this.running -= 1;
            this.grantWaiting();
          });
        },
      };
      this.waiting.push(request);
      if (Number.isFinite(timeoutMs)) {
        timer = setTimeout(() => {
          const index = this.waiting.indexOf(request);
          if (index === -1) return;
          this.waiting.splice(index, 1);
          resolve(null);
          // The head of the queue may have been the one blocking those behind it.
          this.grantWaiting();
        }, Math.max(0, timeoutMs));
      }
      this.grantWaiting();
    });
  }

  private grantWaiting(): void {
    while (this.waiting.length > 0) {
      const next = this.waiting[0]!;
      if (this.running > 0 && this.inUse + next.weight > this.capacity) return;
      this.waiting.shift();
      next.grant();
    }
  }
}
