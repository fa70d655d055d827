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
