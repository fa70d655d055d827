import type { RouteContract } from "../../shared/http/contract.ts";
import { chatBody } from "../../shared/domain/chat.ts";
import { namespacePath } from "../../shared/domain/params.ts";

export const chat = {
  operationId: "chat",
  method: "POST",
  path: "/v1/namespace/{namespaceId}/chat",
  summary: "Answer a question from the namespace's content, citing its chunks",
  tag: "Chat",
  description:
    "Single-shot retrieval-augmented answer: the last user message is searched (the request's retrieval settings, hybrid by default, over the `x-tenant-id` partition), the best chunks are numbered and given to the model with the system prompt, and the answer cites them as [n] (`sources[n-1]`). With `expand` (as for search) each source's `text` is its passage around the hit, up to 4,000 characters. " +
    "The model is the request's `llmConfig`, else the namespace's hosting's, else the deployment's default (Amazon Bedrock when deployed; none on the offline local stack, which answers 422 naming `llmConfig`). " +
    "With `stream: true` (the default) the answer is the AI SDK's UI message stream (`text/event-stream`, header `x-vercel-ai-ui-message-stream: v1`): `start`, one `source-url` or `source-document` per source, `data-sources` (the numbered sources), `text-start`, `text-delta`s as the model produces them, `text-end` (with the [n] citations), `finish`, then `[DONE]`; a failure after the answer began is an `error` part. " +
    "With `agentic: true` (or the hosting's `chatMode: \"agentic\"`) the model instead calls `search` and `expand` tools for up to `maxToolRounds` rounds (default 3) before answering: streamed, each call is a `tool-input-available` part followed by `tool-output-available` or `tool-output-error`, rounds are separated by `finish-step`/`start-step`, and `data-sources` (id `sources`) is re-sent as searches number new sources; whole, the answer adds `toolCalls`. " +
    "A model that refuses the configuration is a 422, and so is an address where no model answers (connection refused, no such host): `llmConfig: no model reachable: ...`; a busy one (429, 5xx, timeouts) a 429 with `Retry-After`.",
  successHeaders: {
    "x-chat-model": { description: "The model that answered, as `<provider>:<model>`, e.g. `bedrock:us.amazon.nova-lite-v1:0`.", schema: { type: "string" } },
    "x-rerank": { description: "As for search: `reranked`, `unavailable` or `failed`, when the request asked for reranking.", schema: { type: "string", enum: ["reranked", "unavailable", "failed"] } },
  },
  request: { path: namespacePath, tenant: true, namespace: "active", body: chatBody, stream: true },
  response: { status: 200, data: "ChatAnswer", eventStream: true },
} as const satisfies RouteContract;
