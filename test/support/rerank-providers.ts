import { createServer, type Server } from "node:http";
import { answer, readJson } from "./aws-json-server.ts";

/**
 * The HTTP reranking providers on 127.0.0.1, each at its own path and in its own request and
 * response shape: Cohere (`POST /v2/rerank`), Voyage AI (`POST /v1/rerank`) and ZeroEntropy
 * (`POST /v1/models/rerank`). Each refuses a request its documentation does not allow (missing
 * bearer key, unknown model, no documents or more than 1,000, a non-positive result count),
 * records what it received, and scores a document by how many of the query's words it contains,
 * so the expected order is known. The key `fail-*` answers 500, `bad-*` 401.
 */
export interface RerankRequest {
  provider: "COHERE" | "VOYAGE" | "ZEROENTROPY";
  authorization: string | undefined;
  body: Record<string, any>;
}

export interface RerankProviderStub {
  baseUrl: string;
  requests: RerankRequest[];
  violations: string[];
  close(): Promise<void>;
}

/** Query words found in the text, with a small tie-breaker for shorter texts. */
export function relevance(query: string, text: string): number {
  const words = new Set(text.toLowerCase().split(/\W+/).filter(Boolean));
  const hits = query.toLowerCase().split(/\W+/).filter((word) => word.length > 2 && words.has(word)).length;
  return Math.round((hits + 1 / (10 + text.length)) * 1e6) / 1e6;
}

const PROVIDERS = {
  "/v2/rerank": {
    provider: "COHERE",
    models: ["rerank-v4.0-pro", "rerank-v4.0-fast", "rerank-v3.5", "rerank-english-v3.0", "rerank-multilingual-v3.0"],
    countField: "top_n",
    listField: "results",
  },
  "/v1/rerank": { provider: "VOYAGE", models: ["rerank-2.5", "rerank-2.5-lite", "rerank-2", "rerank-2-lite"], countField: "top_k", listField: "data" },
  "/v1/models/rerank": { provider: "ZEROENTROPY", models: ["zerank-2", "zerank-1", "zerank-1-small"], countField: "top_n", listField: "results" },
} as const;

export async function startRerankProviders(): Promise<RerankProviderStub> {
  const requests: RerankRequest[] = [];
  const violations: string[] = [];
  const server: Server = createServer(async (request, response) => {
    const route = PROVIDERS[request.url as keyof typeof PROVIDERS];
    if (!route || request.method !== "POST") return answer(response, 404, { message: "not found" });
    const { body } = await readJson(request);
    const authorization = request.headers.authorization;
    requests.push({ provider: route.provider, authorization, body });
    const refuse = (message: string) => {
      violations.push(`${route.provider}: ${message}`);
      return answer(response, 400, { message });
    };
    const key = /^Bearer (\S+)$/.exec(authorization ?? "")?.[1];
    if (!key) return refuse("no bearer key");
    if (key.startsWith("bad-")) return answer(response, 401, { message: `invalid api token ${key}` });
    if (key.startsWith("fail-")) return answer(response, 500, { message: "internal error" });
    if (!(route.models as readonly string[]).includes(body.model)) return refuse(`unknown model ${body.model}`);
    if (typeof body.query !== "string" || body.query.trim() === "") return refuse("no query");
    const documents: unknown = body.documents;
    if (!Array.isArray(documents) || documents.length < 1 || documents.length > 1000 || !documents.every((text) => typeof text === "string")) {
      return refuse("documents must be 1 to 1,000 strings");
    }
    const count: unknown = body[route.countField];
    if (count !== undefined && (!Number.isInteger(count) || (count as number) < 1)) return refuse(`${route.countField} must be a positive integer`);
    const ranked = (documents as string[])
      .map((text, index) => ({ index, relevance_score: relevance(body.query, text) }))
      .sort((a, b) => b.relevance_score - a.relevance_score)
      .slice(0, (count as number | undefined) ?? documents.length);
    return answer(response, 200, route.provider === "VOYAGE" ? { object: "list", data: ranked, model: body.model, usage: { total_tokens: 10 } } : { id: "r-1", [route.listField]: ranked });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    requests,
    violations,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
