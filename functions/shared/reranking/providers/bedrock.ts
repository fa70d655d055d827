import type { BedrockAgentRuntimeClient } from "@aws-sdk/client-bedrock-agent-runtime";
import { observed } from "../../platform/sdk-observer.ts";
import type { RerankerSettings } from "../registry.ts";
import { rankedFromIndexes, RerankError, type Reranker } from "../types.ts";
import { lazyImport } from "../../platform/lazy-import.ts";

/**
 * Amazon Bedrock Rerank (the Agents runtime's `Rerank`), reached with the function's IAM role: the
 * deployed default. The model is addressed by its foundation-model ARN in the function's region.
 */
type AgentRuntimeSdk = typeof import("@aws-sdk/client-bedrock-agent-runtime");

/** A search without reranking does not pay for the client. */
const loadSdk = lazyImport<AgentRuntimeSdk>(() => import("@aws-sdk/client-bedrock-agent-runtime"));

let sharedClient: BedrockAgentRuntimeClient | undefined;

// RerankTextDocument takes 1 to 32,000 characters (query and sources alike).
const MAX_TEXT = 32_000;

function partitionOf(region: string): string {
  if (region.startsWith("cn-")) return "aws-cn";
  if (region.startsWith("us-gov-")) return "aws-us-gov";
  return "aws";
}

function textDocument(text: string) {
  return { text: text.length === 0 ? " " : text.slice(0, MAX_TEXT) };
}

function toRerankError(error: unknown, model: string): RerankError {
  const name = (error as { name?: string } | null)?.name ?? "Error";
  const message = ((error as { message?: string } | null)?.message ?? "").slice(0, 300);
  const status = (error as { $metadata?: { httpStatusCode?: number } } | null)?.$metadata?.httpStatusCode;
  if (name === "AccessDeniedException" && /marketplace|subscri/i.test(message)) {
    return new RerankError("BEDROCK", `Bedrock has not yet enabled ${model} for this account (its first use subscribes the account in AWS Marketplace)`, {
      status,
      retryable: true,
    });
  }
  return new RerankError("BEDROCK", `Bedrock Rerank with ${model} failed: ${name}: ${message}`, { status, retryable: name === "ThrottlingException" });
}

export function create(settings: RerankerSettings): Reranker {
  return {
    model: settings.model,
    async rerank(query, candidates, topN) {
      if (candidates.length === 0) return [];
      const sdk = await loadSdk();
      // A search is waiting: one retry, then the caller degrades to the retrieval order.
      sharedClient ??= observed(new sdk.BedrockAgentRuntimeClient({ maxAttempts: 2 }));
      const region = await sharedClient.config.region();
      const modelArn = `arn:${partitionOf(region)}:bedrock:${region}::foundation-model/${settings.model}`;
      try {
        const output = await sharedClient.send(
          new sdk.RerankCommand({
            queries: [{ type: "TEXT", textQuery: textDocument(query) }],
            sources: candidates.map((candidate) => ({
              type: "INLINE",
              inlineDocumentSource: { type: "TEXT", textDocument: textDocument(candidate.text) },
            })),
            rerankingConfiguration: {
              type: "BEDROCK_RERANKING_MODEL",
              bedrockRerankingConfiguration: { numberOfResults: Math.min(topN, candidates.length), modelConfiguration: { modelArn } },
            },
          }),
          // Retries included, inside the search function's 10 s with retrieval already done.
          { abortSignal: AbortSignal.timeout(5_000) },
        );
        const scored = (output.results ?? []).map((result) => ({ index: result.index, score: result.relevanceScore }));
        return rankedFromIndexes("BEDROCK", candidates, scored, topN);
      } catch (error) {
        if (error instanceof RerankError) throw error;
        throw toRerankError(error, settings.model);
      }
    },
  };
}
