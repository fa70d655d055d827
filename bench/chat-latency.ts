/**
 * Chat latency: what the service adds between a question and the model's words. 1,000 documents of
 * prose in the local stack; each question is asked three ways through the HTTP API: as a hybrid
 * search alone (the retrieval chat starts with), as a streamed chat (time to the first text delta,
 * and to `[DONE]`), and as a whole (`stream: false`) chat. The model is an OpenAI-compatible server
 * on 127.0.0.1 that answers at once (no delay between its deltas), so the times are the service's:
 * retrieval, prompt building, the model request, the UI message stream and the gateway, not a
 * model's. No reranker (the offline default), as search measures it too.
 *
 * Agentic chat (`agentic: true`, whole) is asked the same questions with the model scripted to
 * search once with the question and then answer, the least an agent does: the report gives its
 * latency, its model calls and the characters of prompt the model reads per question, against
 * single-shot's.
 *
 *   npx tsx bench/chat-latency.ts [--documents 1000] [--questions 100]
 *
 * Writes bench/results/chat-latency.json.
 */
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { MAX_BATCH_ITEMS } from "../functions/shared/domain/ingest-job.ts";
import { startLocalStack } from "../local/stack.ts";
import { startOpenAiChatServer } from "../test/support/openai-chat-server.ts";
import { argument, benchApi, createNamespace, generateProse, isEntryPoint, type LatencySummary, ms, newOrganizationKey, numberArgument, saveResults, summarize, waitForJobs, startRun } from "./support.ts";

const DEFAULT_RESULTS_FILE = fileURLToPath(new URL("./results/chat-latency.json", import.meta.url));

/** Posts a streamed chat and times the first text delta and the end of the stream. */
async function streamedChat(url: string, key: string, body: unknown): Promise<{ firstDeltaMs: number; doneMs: number; deltas: number }> {
  const began = performance.now();
  const response = await fetch(url, { method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body: JSON.stringify(body) });
  if (response.status !== 200) throw new Error(`chat answered ${response.status}: ${await response.text()}`);
  let firstDeltaMs = Number.NaN;
  let deltas = 0;
  let text = "";
  const decoder = new TextDecoder();
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    text += decoder.decode(chunk, { stream: true });
    const found = text.split('"type":"text-delta"').length - 1;
    if (found > 0 && deltas === 0) firstDeltaMs = performance.now() - began;
    deltas = found;
  }
  if (!text.trimEnd().endsWith("data: [DONE]")) throw new Error("the stream did not end with [DONE]");
  return { firstDeltaMs, doneMs: performance.now() - began, deltas };
}

function row(name: string, summary: LatencySummary): string {
  return `| ${name} | ${summary.count} | ${ms(summary.p50Ms)} | ${ms(summary.p95Ms)} | ${ms(summary.p99Ms)} |`;
}

export async function runChatLatencyBench(options: { documents?: number; questions?: number; resultsFile?: string | null; log?: (line: string) => void } = {}) {
  const log = options.log ?? console.log;
  const documents = options.documents ?? 1_000;
  const questions = options.questions ?? 100;
  const run = startRun();
  // Offered tools, the model searches once with the question, then answers.
  const model = await startOpenAiChatServer({
    deltaDelayMs: 0,
    toolCalls: (body) => {
      const messages = body.messages as { role: string; content: unknown }[];
      if (messages.some((message) => message.role === "tool")) return undefined;
      return [{ name: "search", arguments: { query: String(messages.findLast((message) => message.role === "user")?.content ?? "") } }];
    },
  });
  const stack = await startLocalStack({ workerConcurrency: 4, rateLimit: { ratePerSecond: 10_000, burst: 10_000 } });
  try {
    const { key } = await newOrganizationKey(`bench-chat-${Date.now()}`);
    const api = benchApi(stack.baseUrl, key);
    const namespaceId = await createNamespace(api, "chat");
    const base = `/v1/namespace/${namespaceId}`;
    const texts = Array.from({ length: documents }, (_, index) => generateProse(index + 1, 1_500, 4_000));
    const jobIds: string[] = [];
    for (let start = 0; start < texts.length; start += MAX_BATCH_ITEMS) {
      const items = texts.slice(start, start + MAX_BATCH_ITEMS).map((text, offset) => ({ type: "TEXT", text, fileName: `doc-${start + offset}.txt` }));
      jobIds.push((await api.expect<{ data: { id: string } }>(201, "POST", `${base}/ingest-jobs`, { payload: { type: "BATCH", items } })).body.data.id);
    }
    await waitForJobs(api, base, jobIds);
    log(`ingested ${documents} documents`);

    const llmConfig = { provider: "OPENAI_COMPATIBLE", baseUrl: model.baseUrl, model: "bench" };
    const asked = Array.from({ length: questions }, (_, index) => generateProse(10_000 + index, 40, 120));
    const search: number[] = [];
    const firstDelta: number[] = [];
    const done: number[] = [];
    const whole: number[] = [];
    const agentic: number[] = [];
    const cost = { singleShot: { calls: 0, promptCharacters: 0 }, agentic: { calls: 0, promptCharacters: 0 } };
    const promptCharacters = (from: number) => model.requests.slice(from).reduce((sum, request) => sum + JSON.stringify(request.body.messages).length, 0);
    // One warm-up of each, so the first cold import is not in the numbers.
    await api.expect(200, "POST", `${base}/search`, { query: asked[0], mode: "hybrid", topK: 10 });
    await streamedChat(`${stack.baseUrl}${base}/chat`, key, { query: asked[0], llmConfig });
    for (const question of asked) {
      search.push((await api.expect(200, "POST", `${base}/search`, { query: question, mode: "hybrid", topK: 10 })).ms);
      const streamed = await streamedChat(`${stack.baseUrl}${base}/chat`, key, { query: question, llmConfig });
      firstDelta.push(streamed.firstDeltaMs);
      done.push(streamed.doneMs);
      let before = model.requests.length;
      whole.push((await api.expect(200, "POST", `${base}/chat`, { query: question, llmConfig, stream: false })).ms);
      cost.singleShot.calls += model.requests.length - before;
      cost.singleShot.promptCharacters += promptCharacters(before);
      before = model.requests.length;
      agentic.push((await api.expect(200, "POST", `${base}/chat`, { query: question, llmConfig, stream: false, agentic: true })).ms);
      cost.agentic.calls += model.requests.length - before;
      cost.agentic.promptCharacters += promptCharacters(before);
    }
    const perQuestion = (total: number) => Math.round((total / questions) * 10) / 10;
    const summaries = {
      search: summarize(search),
      chatFirstDelta: summarize(firstDelta),
      chatStreamDone: summarize(done),
      chatWhole: summarize(whole),
      agenticWhole: summarize(agentic),
    };
    const costs = {
      singleShot: { modelCallsPerQuestion: perQuestion(cost.singleShot.calls), promptCharactersPerQuestion: perQuestion(cost.singleShot.promptCharacters) },
      agentic: { modelCallsPerQuestion: perQuestion(cost.agentic.calls), promptCharactersPerQuestion: perQuestion(cost.agentic.promptCharacters) },
    };
    const markdown = [
      "| request | n | p50 | p95 | p99 |",
      "|---|---:|---:|---:|---:|",
      row("hybrid search, topK 10", summaries.search),
      row("chat, streamed: first text delta", summaries.chatFirstDelta),
      row("chat, streamed: [DONE]", summaries.chatStreamDone),
      row("chat, stream: false", summaries.chatWhole),
      row("agentic chat (one search), stream: false", summaries.agenticWhole),
      "",
      "| mode | model calls / question | prompt characters / question |",
      "|---|---:|---:|",
      `| single-shot | ${costs.singleShot.modelCallsPerQuestion} | ${costs.singleShot.promptCharactersPerQuestion} |`,
      `| agentic (one search) | ${costs.agentic.modelCallsPerQuestion} | ${costs.agentic.promptCharactersPerQuestion} |`,
    ].join("\n");
    const report = {
      benchmark: "chat-latency" as const,
      ...run.conditions(),
      documents,
      questions,
      model: "OpenAI-compatible server on 127.0.0.1, no delay between deltas",
      summaries,
      costs,
      markdown,
    };
    log(markdown);
    saveResults(options.resultsFile, DEFAULT_RESULTS_FILE, report, log);
    return report;
  } finally {
    await stack.stop();
    await model.close();
  }
}

if (isEntryPoint(import.meta.url)) {
  await runChatLatencyBench({ documents: numberArgument("documents"), questions: numberArgument("questions"), resultsFile: argument("results") });
  process.exit(0);
}
