import * as z from "../../platform/zod.ts";
import { LLM_PROVIDER_IDS } from "../catalogs/llm-providers.ts";
import { FINISH_REASONS } from "../chat-messages.ts";
import { EMBEDDING_PROVIDER_IDS } from "../catalogs/embedding-providers.ts";
import { RERANKING_PROVIDER_IDS } from "../catalogs/reranking-providers.ts";
import { ingestConfig } from "../ingest-config.ts";
import { ingestPayload } from "../ingest-job.ts";
import { NAMESPACE_STATUSES, VECTOR_STORE_PROVIDERS } from "../namespace.ts";
import { STATUSES } from "../statuses.ts";
import { CHAT_MODES } from "../hosting.ts";

/**
 * What the API answers, as schemas: the response half of the published contract (the request half
 * is the schemas the route contracts name, functions/http/<feature>/<name>.route.ts). Nothing at run time
 * parses responses with these: the OpenAPI document is built from them (lib/openapi/), the mappers
 * beside them (./*.ts) and the handlers' replies are typed by them (`import type`, so no function
 * bundles them), and the integration suite checks every real response against the document.
 */

const timestamp = z.string().check(z.iso.datetime());
const nullableTimestamp = z.nullable(timestamp);
const status = z.enum(STATUSES);
const count = z.nullable(z.number().check(z.int(), z.gte(0)));

/** When a job or document was created and last entered each state of its run. */
const runTimestamps = {
  createdAt: timestamp,
  queuedAt: nullableTimestamp,
  preProcessingAt: nullableTimestamp,
  processingAt: nullableTimestamp,
  completedAt: nullableTimestamp,
  failedAt: nullableTimestamp,
};

export const namespaceWire = z.strictObject({
  id: z.string().check(z.regex(/^ns_/)),
  name: z.string(),
  slug: z.string(),
  organizationId: z.string(),
  createdAt: timestamp,
  status: z.enum(NAMESPACE_STATUSES),
  // Provider settings vary per provider (domain/catalogs/embedding-providers.ts); a key is always masked.
  embeddingConfig: z.looseObject({ provider: z.enum(EMBEDDING_PROVIDER_IDS), model: z.string(), apiKey: z.optional(z.string()) }),
  vectorStoreConfig: z.strictObject({ provider: z.enum(VECTOR_STORE_PROVIDERS) }),
  // Present when the namespace chose its reranker (domain/catalogs/reranking-providers.ts); a key is always masked.
  rerankingConfig: z.optional(z.strictObject({ provider: z.enum(RERANKING_PROVIDER_IDS), model: z.optional(z.string()), apiKey: z.optional(z.string()) })),
});

export const ingestJobWire = z.strictObject({
  id: z.string().check(z.regex(/^job_/)),
  namespaceId: z.string(),
  tenantId: z.nullable(z.string()),
  externalId: z.nullable(z.string()),
  name: z.nullable(z.string()),
  status,
  error: z.nullable(z.string()),
  payload: ingestPayload,
  config: z.nullable(ingestConfig),
  ...runTimestamps,
});

const documentSource = z.discriminatedUnion("type", [
  z.strictObject({ type: z.literal("TEXT"), text: z.string() }),
  z.strictObject({ type: z.literal("MANAGED_FILE"), key: z.string() }),
  z.strictObject({ type: z.literal("FILE"), fileUrl: z.string() }),
]);

export const documentWire = z.strictObject({
  id: z.string().check(z.regex(/^doc_/)),
  ingestJobId: z.string(),
  name: z.nullable(z.string()),
  tenantId: z.nullable(z.string()),
  status,
  error: z.nullable(z.string()),
  source: documentSource,
  properties: z.nullable(
    z.strictObject({ fileSize: z.number().check(z.int(), z.gte(0)), mimeType: z.string(), notes: z.optional(z.array(z.string())) }),
  ),
  config: z.nullable(ingestConfig),
  totalChunks: count,
  totalTokens: count,
  totalCharacters: count,
  totalPages: count,
  ...runTimestamps,
});

export const hostingWire = z.strictObject({
  namespaceId: z.string(),
  title: z.string(),
  slug: z.string(),
  logo: z.nullable(z.string()),
  ogTitle: z.nullable(z.string()),
  ogDescription: z.nullable(z.string()),
  ogImage: z.nullable(z.string()),
  systemPrompt: z.nullable(z.string()),
  exampleQuestions: z.array(z.string()),
  exampleSearchQueries: z.array(z.string()),
  welcomeMessage: z.nullable(z.string()),
  citationMetadataPath: z.nullable(z.string()),
  searchEnabled: z.boolean(),
  rerankConfig: z.strictObject({ model: z.string(), limit: z.number().check(z.int()) }),
  // An agentset model name alone, or our provider configuration (domain/llm-config.ts), key masked.
  llmConfig: z.strictObject({
    model: z.optional(z.string()),
    provider: z.optional(z.enum(LLM_PROVIDER_IDS)),
    baseUrl: z.optional(z.string()),
    apiKey: z.optional(z.string()),
  }),
  topK: z.number().check(z.int()),
  protected: z.boolean(),
  allowedEmails: z.array(z.string()),
  allowedEmailDomains: z.array(z.string()),
  chatMode: z.enum(CHAT_MODES),
  mcpEnabled: z.boolean(),
  createdAt: timestamp,
  updatedAt: timestamp,
});

export const uploadTargetWire = z.strictObject({ url: z.string(), key: z.string() });

export const downloadUrlWire = z.strictObject({ url: z.string() });

export const reingestWire = z.strictObject({ id: z.string().check(z.regex(/^job_/)) });

const metadataValue = z.union([z.string(), z.number(), z.boolean(), z.array(z.string())]);

/** With `expand`: the hit and the chunks around it, joined; `hit` gives the hit's character range within `text`. */
export const passageWire = z.strictObject({
  text: z.string(),
  hit: z.strictObject({ start: z.number().check(z.int()), end: z.number().check(z.int()) }),
  chunks: z.strictObject({ first: z.number().check(z.int()), last: z.number().check(z.int()) }),
});

export const searchResultWire = z.strictObject({
  id: z.string(),
  score: z.number(),
  // The reranker's relevance when the results were reranked (`x-rerank: reranked`); ordered by it, best first.
  rerankScore: z.optional(z.number()),
  text: z.string(),
  metadata: z.optional(z.record(z.string(), metadataValue)),
  passage: z.optional(passageWire),
});

export const hostedHitWire = z.strictObject({
  id: z.string(),
  text: z.string(),
  score: z.number(),
  rerankScore: z.optional(z.number()),
  documentName: z.nullable(z.string()),
  citation: z.nullable(z.string()),
});

const textRangeWire = z.strictObject({ start: z.number().check(z.int()), end: z.number().check(z.int()) });

// A hit as the search tab shows it (domain/hosted/page.ts HostedSearchHit).
export const hostedSearchHitWire = z.extend(hostedHitWire, {
  documentId: z.nullable(z.string()),
  location: z.nullable(z.strictObject({ page: z.optional(z.number().check(z.int())), slide: z.optional(z.number().check(z.int())), sheet: z.optional(z.string()) })),
  snippet: textRangeWire,
  highlights: z.array(textRangeWire),
  sourceFile: z.boolean(),
});

// A hit as chat cites it: `[index]` in the answer names it.
export const chatSourceWire = z.extend(hostedHitWire, { index: z.number().check(z.int()) });

export const chatAnswerWire = z.strictObject({
  text: z.string(),
  finishReason: z.enum(FINISH_REASONS),
  usage: z.optional(z.strictObject({ inputTokens: z.number().check(z.int()), outputTokens: z.number().check(z.int()) })),
  model: z.string(),
  sources: z.array(chatSourceWire),
  // Agentic answers: each tool call with its input and its output (or error).
  toolCalls: z.optional(
    z.array(z.strictObject({ id: z.string(), name: z.string(), input: z.unknown(), output: z.optional(z.unknown()), error: z.optional(z.string()) })),
  ),
});

export const signInRequestedWire = z.strictObject({ message: z.string() });

export const paginationWire = z.strictObject({
  nextCursor: z.nullable(z.string()),
  prevCursor: z.nullable(z.string()),
  hasMore: z.boolean(),
});

/** The response schemas the OpenAPI document names (`#/components/schemas/<name>`), in its order; route contracts name them. */
export const WIRE_COMPONENTS = {
  Namespace: namespaceWire,
  Hosting: hostingWire,
  UploadTarget: uploadTargetWire,
  IngestJob: ingestJobWire,
  ReingestResult: reingestWire,
  Document: documentWire,
  DownloadUrl: downloadUrlWire,
  SearchResult: searchResultWire,
  HostedHit: hostedHitWire,
  HostedSearchHit: hostedSearchHitWire,
  ChatAnswer: chatAnswerWire,
  SignInRequested: signInRequestedWire,
};

export type ComponentName = keyof typeof WIRE_COMPONENTS;
/** What the API sends for a component: the schema's output, as the document describes it. */
export type Wire<N extends ComponentName> = z.output<(typeof WIRE_COMPONENTS)[N]>;
export type Pagination = z.output<typeof paginationWire>;
