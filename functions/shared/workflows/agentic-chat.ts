import { AGENT_LIMITS, agentPromptMessages, CHAT_LIMITS, type ChatSource } from "../domain/chat.ts";
import { citedHit } from "../domain/hosted/page.ts";
import { metadataFilter, type MetadataFilter } from "../domain/metadata-filter.ts";
import type { NamespaceRecord } from "../domain/namespace.ts";
import { EXPANSION_LIMITS, type SearchRequest } from "../domain/search.ts";
import type { ChatDelta, ChatMessage, ChatModel, ToolCall, ToolSpec } from "../llm/types.ts";
import * as z from "../platform/zod.ts";
import { expandHits, passageWindow } from "./expansion.ts";
import { rerankResults } from "./rerank.ts";
import { search } from "./search.ts";

/**
 * Agentic retrieval: the model is given `search` and `expand` tools and calls them for up to
 * `rounds` rounds (each round one model call, its tool calls run in parallel), then answers citing
 * the sources the tools numbered. Costs more than single-shot (rounds + 1 model calls, each
 * re-reading the conversation and the tool results so far) and needs a model that calls tools; in
 * return it can rewrite follow-ups, split questions and read around a hit. README "Chat".
 */
export type AgentEvent =
  | ChatDelta
  | { type: "tool-result"; callId: string; name: string; output: unknown }
  | { type: "tool-error"; callId: string; name: string; errorText: string }
  /** The sources list grew (a search numbered new chunks, or an expansion widened one). */
  | { type: "sources" }
  /** One round ended; the model is called again with the tools' results. */
  | { type: "step" };

export interface AgentContext {
  namespace: NamespaceRecord;
  tenantId: string | null;
  /** The caller's retrieval settings; a tool's query, mode and filter apply within them. */
  retrieval: SearchRequest;
  citationMetadataPath: string | null;
  /** Filled as searches number chunks; `[n]` in the answer names `sources[n - 1]`. */
  sources: ChatSource[];
}

const searchToolInput = z.object({
  query: z.string().check(z.minLength(1), z.maxLength(1000), z.refine((query) => query.trim() !== "", "must contain more than whitespace")),
  mode: z.optional(z.enum(["semantic", "keyword", "hybrid"])),
  filter: z.optional(metadataFilter),
});

const neighbours = z.optional(z.number().check(z.int(), z.gte(0), z.lte(EXPANSION_LIMITS.neighbours)));
const expandToolInput = z.object({
  source: z.number().check(z.int(), z.gte(1), z.lte(AGENT_LIMITS.sources)),
  before: neighbours,
  after: neighbours,
});

/** What the model is told of the tools; the zod schemas above check what it sends. */
const AGENT_TOOLS: ToolSpec[] = [
  {
    name: "search",
    description:
      "Searches the documents and returns the best matching passages, each with a source number to cite as [n]. Use a standalone query with the words the documents would use.",
    inputSchema: {
      type: "object",
      properties: {
        query: { type: "string", description: "What to look for." },
        mode: { type: "string", enum: ["semantic", "keyword", "hybrid"], description: "hybrid (default): meaning and words; keyword: exact words, names, codes; semantic: meaning only." },
        filter: { type: "object", description: 'Optional metadata filter, e.g. {"topic": "billing"} or {"year": {"$gte": 2024}}.' },
      },
      required: ["query"],
    },
  },
  {
    name: "expand",
    description: "Reads the text around a search result (the chunks before and after it in its document), for a passage that seems cut off.",
    inputSchema: {
      type: "object",
      properties: {
        source: { type: "integer", description: "The source number a search returned." },
        before: { type: "integer", minimum: 0, maximum: 5, description: "Chunks before it (default 2)." },
        after: { type: "integer", minimum: 0, maximum: 5, description: "Chunks after it (default 2)." },
      },
      required: ["source"],
    },
  },
];

/** The whole agent: its rounds, then the answer; the first event is the first model call's first delta. */
export async function* runAgent(
  model: ChatModel,
  context: AgentContext,
  options: { systemPrompt: string | null | undefined; conversation: ChatMessage[]; rounds: number; maxOutputTokens: number; temperature?: number; signal: AbortSignal },
): AsyncGenerator<AgentEvent> {
  const messages = agentPromptMessages(options.systemPrompt, options.conversation, options.rounds);
  const fullText = new Map<string, string>();
  const usage = { inputTokens: 0, outputTokens: 0 };
  for (let round = 0; ; round++) {
    const last = round >= options.rounds;
    let text = "";
    const calls: ToolCall[] = [];
    let finish: Extract<ChatDelta, { type: "finish" }> | undefined;
    for await (const delta of model.stream(messages, {
      maxOutputTokens: options.maxOutputTokens,
      ...(options.temperature !== undefined ? { temperature: options.temperature } : {}),
      signal: options.signal,
      tools: AGENT_TOOLS,
      toolChoice: last ? "none" : "auto",
    })) {
      if (delta.type === "text") {
        text += delta.text;
        yield delta;
      } else if (delta.type === "tool-call") {
        // The last round may not call tools; a model that still does has its calls ignored.
        if (!last) calls.push(delta.call);
      } else {
        finish = delta;
      }
    }
    if (finish?.usage) {
      usage.inputTokens += finish.usage.inputTokens;
      usage.outputTokens += finish.usage.outputTokens;
    }
    if (calls.length === 0) {
      yield { type: "finish", reason: finish?.reason === "tool-calls" ? "other" : (finish?.reason ?? "other"), ...(usage.inputTokens + usage.outputTokens > 0 ? { usage } : {}) };
      return;
    }
    messages.push({ role: "assistant", content: text, toolCalls: calls });
    for (const call of calls) yield { type: "tool-call", call };
    const results = await Promise.all(calls.map((call, index) => (index < AGENT_LIMITS.callsPerRound ? runTool(call, context, fullText) : Promise.resolve({ error: `at most ${AGENT_LIMITS.callsPerRound} tool calls a round` }))));
    let grew = false;
    for (const [index, call] of calls.entries()) {
      const result = results[index]!;
      if ("error" in result) {
        yield { type: "tool-error", callId: call.id, name: call.name, errorText: result.error };
        messages.push({ role: "tool", toolCallId: call.id, content: JSON.stringify({ error: result.error }) });
        continue;
      }
      grew ||= result.grew;
      yield { type: "tool-result", callId: call.id, name: call.name, output: result.output };
      messages.push({ role: "tool", toolCallId: call.id, content: boundedJson(result.output) });
    }
    if (grew) yield { type: "sources" };
    yield { type: "step" };
  }
}

type ToolOutcome = { output: unknown; grew: boolean } | { error: string };

async function runTool(call: ToolCall, context: AgentContext, fullText: Map<string, string>): Promise<ToolOutcome> {
  if (call.name === "search") {
    const parsed = searchToolInput.safeParse(call.input);
    if (!parsed.success) return { error: `invalid input: ${z.formatIssue(parsed.error.issues[0])}` };
    return searchTool(parsed.data, context, fullText);
  }
  if (call.name === "expand") {
    const parsed = expandToolInput.safeParse(call.input);
    if (!parsed.success) return { error: `invalid input: ${z.formatIssue(parsed.error.issues[0])}` };
    return expandTool(parsed.data, context, fullText);
  }
  return { error: `unknown tool ${JSON.stringify(call.name)}; the tools are search and expand` };
}

async function searchTool(input: z.output<typeof searchToolInput>, context: AgentContext, fullText: Map<string, string>): Promise<ToolOutcome> {
  const { retrieval } = context;
  // The caller's filter bounds what the model may see; the model's narrows it further.
  const filter: MetadataFilter | undefined = retrieval.filter && input.filter ? { $and: [retrieval.filter, input.filter] } : (input.filter ?? retrieval.filter);
  const request: SearchRequest = { ...retrieval, query: input.query, mode: input.mode ?? retrieval.mode, ...(filter ? { filter } : {}), includeMetadata: true };
  const { results } = await rerankResults(context.namespace, request, await search(context.namespace, context.tenantId, request));
  let grew = false;
  const listed: unknown[] = [];
  for (const result of results) {
    let source = context.sources.find((known) => known.id === result.id);
    if (!source) {
      if (context.sources.length >= AGENT_LIMITS.sources) break;
      source = { ...citedHit(result, context.citationMetadataPath), text: result.text.slice(0, CHAT_LIMITS.sourceLength), index: context.sources.length + 1 };
      context.sources.push(source);
      fullText.set(result.id, result.text);
      grew = true;
    }
    listed.push({ source: source.index, document: source.documentName, ...(source.citation ? { citation: source.citation } : {}), text: source.text });
  }
  return { output: { results: listed }, grew };
}

async function expandTool(input: z.output<typeof expandToolInput>, context: AgentContext, fullText: Map<string, string>): Promise<ToolOutcome> {
  const source = context.sources[input.source - 1];
  if (!source) return { error: `there is no source ${input.source}; search first` };
  const [expanded] = await expandHits(context.namespace, context.tenantId, [{ id: source.id, text: fullText.get(source.id) ?? source.text }], {
    before: input.before ?? 2,
    after: input.after ?? 2,
    wholeDocument: false,
  });
  const passage = expanded!.passage;
  // The source shows what the model read, so a citation of it leads to that text.
  source.text = passageWindow(passage, CHAT_LIMITS.sourceLength);
  return { output: { source: source.index, document: source.documentName, text: passageWindow(passage, AGENT_LIMITS.toolResultCharacters) }, grew: true };
}

/** A tool result as the model reads it, cut to its budget (a long result loses its last passages). */
function boundedJson(output: unknown): string {
  const json = JSON.stringify(output);
  if (json.length <= AGENT_LIMITS.toolResultCharacters) return json;
  if (output && typeof output === "object" && Array.isArray((output as { results?: unknown[] }).results)) {
    const results = [...(output as { results: unknown[] }).results];
    while (results.length > 1 && JSON.stringify({ results }).length > AGENT_LIMITS.toolResultCharacters) results.pop();
    return JSON.stringify({ results });
  }
  return json.slice(0, AGENT_LIMITS.toolResultCharacters);
}
