import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

/**
 * `npm run bench [-- name ...]`: every benchmark (or the named ones) in turn, each in its own
 * process (each starts its own local stack, and the functions keep their SDK clients per process),
 * each printing its table and writing its numbers to bench/results/. The whole set takes about an
 * hour, most of it loading 100,000 jobs and 100,000 chunks into the local stack.
 */
const BENCHES = ["bundles", "chunker", "text-parsers", "documents", "fidelity", "ingest-e2e", "list-latency", "search-latency", "fault-injection", "large-file", "reingest-cost", "retrieval-quality", "ir-collection", "chat-latency"];

const wanted = process.argv.slice(2);
const unknown = wanted.filter((name) => !BENCHES.includes(name));
if (unknown.length > 0) {
  console.error(`unknown benchmark(s): ${unknown.join(", ")}; choose from ${BENCHES.join(", ")}`);
  process.exit(2);
}
let failed = 0;
for (const name of BENCHES) {
  if (wanted.length > 0 && !wanted.includes(name)) continue;
  console.log(`\n## ${name}\n`);
  const result = spawnSync(process.execPath, ["node_modules/tsx/dist/cli.mjs", `bench/${name}.ts`], {
    cwd: fileURLToPath(new URL("../", import.meta.url)),
    stdio: "inherit",
  });
  if (result.status !== 0) failed += 1;
}
process.exit(failed === 0 ? 0 : 1);
