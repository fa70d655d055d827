/**
 * Re-ingest cost benchmark: 1,000 uploaded Markdown documents ingested through the HTTP API of the
 * local stack, then re-ingested unchanged, then re-ingested with 10% of the files edited (one
 * section of each rewritten), then 10% of the files ingested again as new documents (copies). Namespaces embed with Bedrock Titan V2, answered by a Bedrock Runtime
 * endpoint on 127.0.0.1 (test/support/bedrock-runtime.ts) that counts every InvokeModel call and
 * the characters sent; Titan takes one text per call, so calls = chunks embedded.
 *
 *   npx tsx bench/reingest-cost.ts [--documents 1000] [--edited-share 0.1]
 *
 * Prints a Markdown table and writes bench/results/reingest-cost.json.
 */
import { PutObjectCommand } from "@aws-sdk/client-s3";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { MAX_BATCH_ITEMS } from "../functions/shared/domain/ingest-job.ts";
import { startLocalStack } from "../local/stack.ts";
import { startBedrockRuntimeStub } from "../test/support/bedrock-runtime.ts";
import { argument, numberArgument, benchApi, createNamespace, generateProse, isEntryPoint, listAll, mapPool, newOrganizationKey, saveResults, waitForJobs, startRun, type RunConditions } from "./support.ts";

const DEFAULT_RESULTS_FILE = fileURLToPath(new URL("./results/reingest-cost.json", import.meta.url));
const SECTIONS = 4;
const CONFIG = { chunkSize: 1024, chunkingStrategy: "by_title" };

export interface PassResult {
  pass: string;
  documents: number;
  editedDocuments: number;
  embeddingCalls: number;
  embeddedCharacters: number;
  chunks: number;
  wallSeconds: number;
}

export interface ReingestCostReport extends RunConditions {
  benchmark: "reingest-cost";
  passes: PassResult[];
  markdown: string;
}

function documentText(index: number, editedSection: number | null): string {
  return Array.from({ length: SECTIONS }, (_, section) => {
    const body = generateProse(index * 10 + section, 500, 800);
    const text = section === editedSection ? `Revised: ${generateProse(900_000 + index * 10 + section, 500, 800)}` : body;
    return `## Section ${section + 1} of document ${index}\n\n${text}`;
  }).join("\n\n");
}

function markdownTable(passes: readonly PassResult[]): string {
  const lines = ["| pass | documents | edited | chunks | embedding calls | embedded characters | wall s |", "|---|---:|---:|---:|---:|---:|---:|"];
  for (const pass of passes) {
    lines.push(
      `| ${pass.pass} | ${pass.documents.toLocaleString("en-US")} | ${pass.editedDocuments} | ${pass.chunks.toLocaleString("en-US")} | ${pass.embeddingCalls.toLocaleString("en-US")} | ${pass.embeddedCharacters.toLocaleString("en-US")} | ${pass.wallSeconds.toFixed(1)} |`,
    );
  }
  return lines.join("\n");
}

export async function runReingestCostBench(options: { documents?: number; editedShare?: number; resultsFile?: string | null; log?: (line: string) => void } = {}) {
  const log = options.log ?? console.log;
  const documents = options.documents ?? 1_000;
  const edited = Math.round(documents * (options.editedShare ?? 0.1));
  const run = startRun();
  const bedrock = await startBedrockRuntimeStub();
  const stack = await startLocalStack({
    workerConcurrency: 4,
    rateLimit: { ratePerSecond: 10_000, burst: 10_000 },
    env: { DEFAULT_EMBEDDING_PROVIDER: "BEDROCK", AWS_ENDPOINT_URL_BEDROCK_RUNTIME: bedrock.endpoint },
  });
  try {
    const { key } = await newOrganizationKey(`bench-reingest-${Date.now()}`);
    const api = benchApi(stack.baseUrl, key);
    const namespaceId = await createNamespace(api, "reingest");
    const base = `/v1/namespace/${namespaceId}`;

    // Uploads through createUploads, 100 per request, then PUT to each presigned URL.
    const keys: string[] = [];
    for (let start = 0; start < documents; start += 100) {
      const files = Array.from({ length: Math.min(100, documents - start) }, (_, offset) => {
        const text = documentText(start + offset, null);
        return { fileName: `doc-${start + offset}.md`, contentType: "text/markdown", fileSize: Buffer.byteLength(text), text };
      });
      const targets = await api.expect<{ data: { url: string; key: string }[] }>(201, "POST", `${base}/uploads/batch`, {
        files: files.map(({ text: _text, ...file }) => file),
      });
      await mapPool(targets.body.data, 16, async (target, index) => {
        const response = await fetch(target.url, { method: "PUT", headers: { "content-type": "text/markdown" }, body: files[index]!.text });
        if (response.status !== 200) throw new Error(`upload answered ${response.status}`);
      });
      keys.push(...targets.body.data.map((target) => target.key));
    }

    const jobIds: string[] = [];
    const passes: PassResult[] = [];
    /** `start` queues the pass's work and returns the jobs to wait for. */
    const runPass = async (pass: string, editedDocuments: number, start: () => Promise<string[]>) => {
      const calls = bedrock.invocations.length;
      const since = new Date().toISOString();
      const began = performance.now();
      await waitForJobs(api, base, await start(), since);
      const wallSeconds = (performance.now() - began) / 1000;
      const sent = bedrock.invocations.slice(calls);
      const { items } = await listAll<{ totalChunks: number | null }>(api, `${base}/documents`);
      const result: PassResult = {
        pass,
        documents: items.length,
        editedDocuments,
        embeddingCalls: sent.length,
        embeddedCharacters: sent.reduce((sum, call) => sum + String(call.body.inputText ?? "").length, 0),
        chunks: items.reduce((sum, document) => sum + (document.totalChunks ?? 0), 0),
        wallSeconds,
      };
      log(`${pass}: ${result.embeddingCalls} embedding calls for ${result.chunks} chunks, ${wallSeconds.toFixed(1)} s`);
      passes.push(result);
    };
    const reingestAll = async () => {
      for (const jobId of jobIds) await api.expect(200, "POST", `${base}/ingest-jobs/${jobId}/re-ingest`);
      return [...jobIds];
    };
    const ingest = async (items: Record<string, unknown>[]) => {
      const created: string[] = [];
      for (let start = 0; start < items.length; start += MAX_BATCH_ITEMS) {
        const job = await api.expect<{ data: { id: string } }>(201, "POST", `${base}/ingest-jobs`, { payload: { type: "BATCH", items: items.slice(start, start + MAX_BATCH_ITEMS) }, config: CONFIG });
        created.push(job.body.data.id);
      }
      jobIds.push(...created);
      return created;
    };

    await runPass("first ingest", 0, () => ingest(keys.map((key, index) => ({ type: "MANAGED_FILE", key, fileName: `doc-${index}.md` }))));
    await runPass("re-ingest, unchanged", 0, reingestAll);
    // Every tenth document gets one section rewritten, in place (the same upload key).
    const step = Math.max(1, Math.floor(documents / Math.max(1, edited)));
    const editedIndexes = Array.from({ length: edited }, (_, index) => index * step);
    await mapPool(editedIndexes, 16, (index) =>
      stack.clients.s3.send(
        new PutObjectCommand({ Bucket: stack.resources.bucketName, Key: keys[index]!, Body: documentText(index, index % SECTIONS), ContentType: "text/markdown" }),
      ),
    );
    await runPass(`re-ingest, ${Math.round((edited / documents) * 100)}% edited`, edited, reingestAll);
    // As many new documents, each a copy of an unedited file: every chunk already has a vector in
    // the namespace (embedding pointers), so none should be embedded.
    const copies = editedIndexes.map((index) => Math.min(documents - 1, index + 1));
    await runPass(`${Math.round((edited / documents) * 100)}% copied into new documents`, 0, () =>
      ingest(copies.map((index) => ({ type: "MANAGED_FILE", key: keys[index]!, fileName: `copy-of-doc-${index}.md` }))),
    );

    const partial = {
      benchmark: "reingest-cost" as const,
      ...run.conditions(),
      passes,
    };
    const report: ReingestCostReport = { ...partial, markdown: markdownTable(passes) };
    log(report.markdown);
    if (bedrock.violations.length > 0) log(`Bedrock limit violations: ${bedrock.violations.join("; ")}`);
    saveResults(options.resultsFile, DEFAULT_RESULTS_FILE, report, log);
    return report;
  } finally {
    await stack.stop();
    await bedrock.close();
  }
}

if (isEntryPoint(import.meta.url)) {
  await runReingestCostBench({
    documents: numberArgument("documents"),
    editedShare: numberArgument("edited-share"),
    resultsFile: argument("results"),
  });
  process.exit(0);
}
