/**
 * Search latency benchmark on the local stack: p50/p95/p99 of POST /v1/namespace/{id}/search over
 * HTTP, in each mode (semantic, keyword, hybrid) and for one filtered semantic query, with 10,000
 * and with 100,000 chunks in one namespace. The corpora go through the real ingestion path (TEXT and
 * BATCH ingest jobs over HTTP, the real workers), and their chunk totals are checked against the
 * documents list before any query runs. Afterwards a small in-process profile times the pieces a
 * query is made of (embedding the query, the vector scan, the DynamoDB BatchGet of candidate
 * documents, the keyword index steps, the authorizer and namespace reads) so a missed target can
 * be explained rather than just reported.
 *
 * The local vector store scans exactly, so recall@10 against exact search should be 1.0; it is
 * checked anyway, against a naive exact scan of the same partition (search-latency/recall.ts), for
 * the store's scan and for search() end to end.
 *
 * Everything (gateway, handlers, workers, DynamoDB Local, the S3/SQS emulator) runs on this machine,
 * so the numbers describe the local stack, not AWS.
 *
 *   npx tsx bench/search-latency.ts [--corpora 10k,100k] [--results bench/results/search-latency.json]
 *
 * The parts: search-latency/corpus.ts generates the corpus and queries, search-latency/run.ts runs
 * the ingestion, the scenarios, the profile and the recall check, search-latency/recall.ts is the
 * exact reference, search-latency/report.ts renders the tables.
 *
 * About 4 to 8 minutes on a 2-core machine, depending on what else runs on it. Prints Markdown
 * tables and writes bench/results/search-latency.json.
 */
import { argument, isEntryPoint } from "./support.ts";
import { DEFAULT_CORPORA } from "./search-latency/corpus.ts";
import { runSearchLatencyBench } from "./search-latency/run.ts";

export { runSearchLatencyBench };

if (isEntryPoint(import.meta.url)) {
  const wanted = argument("corpora")?.split(",");
  const corpora = wanted?.map((name) => {
    const spec = DEFAULT_CORPORA.find((corpus) => corpus.label === `${name} chunks`);
    if (!spec) throw new Error(`--corpora: unknown corpus ${name} (${DEFAULT_CORPORA.map((corpus) => corpus.label.split(" ")[0]).join(", ")})`);
    return spec;
  });
  await runSearchLatencyBench({ corpora, resultsFile: argument("results") });
}
