import { runBundlesBench } from "./bundles.ts";
import { runChunkerBench } from "./chunker.ts";
import { runFaultInjectionBench } from "./fault-injection.ts";
import { runIngestE2eBench } from "./ingest-e2e.ts";
import { runListLatencyBench } from "./list-latency.ts";
import { runSearchLatencyBench } from "./search-latency.ts";

/**
 * `npm run bench`: every benchmark in turn, each writing its table to stdout and its numbers to
 * bench/results/. Run one alone with `npx tsx bench/<name>.ts`. The whole set takes about an hour,
 * most of it loading 100,000 jobs and 100,000 chunks into the local stack.
 */
const benches: [string, () => Promise<unknown>][] = [
  ["bundles", () => runBundlesBench()],
  ["chunker", () => runChunkerBench()],
  ["ingest-e2e", () => runIngestE2eBench()],
  ["list-latency", () => runListLatencyBench()],
  ["search-latency", () => runSearchLatencyBench()],
  ["fault-injection", () => runFaultInjectionBench()],
];

const only = process.argv.slice(2);
for (const [name, run] of benches) {
  if (only.length > 0 && !only.includes(name)) continue;
  console.log(`\n## ${name}\n`);
  await run();
}
