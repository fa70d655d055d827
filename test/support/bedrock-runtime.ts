import { createServer, type Http2Server } from "node:http2";
import { answer, readJson } from "./aws-json-server.ts";
import { relevance } from "./rerank-providers.ts";

/**
 * A Bedrock Runtime endpoint on 127.0.0.1: InvokeModel over HTTP/2 (as the SDK speaks it) for the
 * embedding models the registry offers. It refuses what Bedrock documents it refuses (Titan V2:
 * 50,000 characters and dimensions 256/512/1024; Cohere v3: 1 to 96 texts and a known input type),
 * records every request, and answers each text with a vector derived from its words, so equal
 * texts get equal vectors and search over them works.
 */
export interface BedrockInvocation {
  modelId: string;
  body: Record<string, any>;
}

export interface BedrockRuntimeStub {
  endpoint: string;
  invocations: BedrockInvocation[];
  /** Rerank requests (the Agents runtime's `POST /rerank`, served here too: AWS_ENDPOINT_URL_BEDROCK_AGENT_RUNTIME). */
  reranks: Record<string, any>[];
  violations: string[];
  close(): Promise<void>;
}

const TITAN = { maxCharacters: 50_000, dimensions: [256, 512, 1024] };
const COHERE = { maxTexts: 96, inputTypes: ["search_document", "search_query", "classification", "clustering"] };

function vectorOf(text: string, dimension: number): number[] {
  const vector = new Array<number>(dimension).fill(0.001);
  for (const word of text.toLowerCase().split(/\W+/).filter(Boolean)) {
    let hash = 0;
    for (let index = 0; index < word.length; index++) hash = (hash * 31 + word.charCodeAt(index)) >>> 0;
    vector[hash % dimension]! += 1;
  }
  return vector;
}

// Rerank limits from the API reference (RerankRequest, RerankTextDocument) and the models' regions.
const RERANK = {
  maxSources: 1000,
  maxText: 32_000,
  regions: { "amazon.rerank-v1:0": ["ap-northeast-1", "ca-central-1", "eu-central-1", "us-west-2"], "cohere.rerank-v3-5:0": ["ap-northeast-1", "ca-central-1", "eu-central-1", "us-east-1", "us-west-2"] } as Record<string, string[]>,
};

/** Checks a Rerank request as Bedrock would and scores the sources by the query's words. */
function rerank(body: Record<string, any>, signedRegion: string | undefined, refuse: (message: string) => void) {
  const validText = (document: any) => document?.text !== undefined && typeof document.text === "string" && document.text.length >= 1 && document.text.length <= RERANK.maxText;
  if (!Array.isArray(body.queries) || body.queries.length !== 1 || body.queries[0].type !== "TEXT" || !validText(body.queries[0].textQuery)) refuse("queries must be one TEXT query of 1 to 32,000 characters");
  const sources: any[] = Array.isArray(body.sources) ? body.sources : [];
  if (sources.length < 1 || sources.length > RERANK.maxSources) refuse(`${sources.length} sources`);
  for (const source of sources) {
    if (source.type !== "INLINE" || source.inlineDocumentSource?.type !== "TEXT" || !validText(source.inlineDocumentSource.textDocument)) refuse("a source that is not INLINE TEXT of 1 to 32,000 characters");
  }
  const configuration = body.rerankingConfiguration;
  if (configuration?.type !== "BEDROCK_RERANKING_MODEL") refuse(`rerankingConfiguration.type ${configuration?.type}`);
  const settings = configuration?.bedrockRerankingConfiguration;
  const arn = /^arn:aws:bedrock:([a-z0-9-]+)::foundation-model\/(.+)$/.exec(String(settings?.modelConfiguration?.modelArn));
  if (!arn) refuse(`modelArn ${settings?.modelConfiguration?.modelArn}`);
  else if (arn[1] !== signedRegion || !(RERANK.regions[arn[2]!] ?? []).includes(arn[1]!)) refuse(`${arn[2]} is not offered in ${arn[1]} (request signed for ${signedRegion})`);
  const count = settings?.numberOfResults;
  if (count !== undefined && (!Number.isInteger(count) || count < 1 || count > RERANK.maxSources)) refuse(`numberOfResults ${count}`);
  const query = String(body.queries?.[0]?.textQuery?.text ?? "");
  return sources
    .map((source, index) => ({ index, relevanceScore: relevance(query, String(source.inlineDocumentSource?.textDocument?.text ?? "")) }))
    .sort((a, b) => b.relevanceScore - a.relevanceScore)
    .slice(0, count ?? sources.length);
}

export async function startBedrockRuntimeStub(): Promise<BedrockRuntimeStub> {
  const invocations: BedrockInvocation[] = [];
  const reranks: Record<string, any>[] = [];
  const violations: string[] = [];
  const server: Http2Server = createServer(async (request, response) => {
    const { body } = await readJson(request);
    if (request.url === "/rerank") {
      reranks.push(body);
      // The SigV4 scope names the region and the service the request was signed for.
      const scope = /Credential=[^/]+\/\d{8}\/([^/]+)\/([^/]+)\/aws4_request/.exec(String(request.headers.authorization));
      if (scope?.[2] !== "bedrock") violations.push(`Bedrock Rerank: signed for service ${scope?.[2]}`);
      const before = violations.length;
      const results = rerank(body, scope?.[1], (message) => violations.push(`Bedrock Rerank: ${message}`));
      if (violations.length > before) return answer(response, 400, { message: violations.at(-1) }, "ValidationException");
      return answer(response, 200, { results });
    }
    const modelId = decodeURIComponent((request.url ?? "").split("/")[2] ?? "");
    invocations.push({ modelId, body });
    const refuse = (message: string) => violations.push(`Bedrock ${modelId}: ${message}`);
    if (modelId.startsWith("amazon.titan-embed-text-v2")) {
      if (typeof body.inputText !== "string" || body.inputText.length > TITAN.maxCharacters) refuse(`inputText of ${body.inputText?.length} characters`);
      if (!TITAN.dimensions.includes(body.dimensions)) refuse(`dimensions ${body.dimensions}`);
      return answer(response, 200, { embedding: vectorOf(String(body.inputText), body.dimensions), inputTextTokenCount: Math.ceil(String(body.inputText).length / 4) });
    }
    if (modelId.startsWith("cohere.embed")) {
      if (!Array.isArray(body.texts) || body.texts.length < 1 || body.texts.length > COHERE.maxTexts) refuse(`${body.texts?.length} texts`);
      if (!COHERE.inputTypes.includes(body.input_type)) refuse(`input_type ${body.input_type}`);
      return answer(response, 200, { embeddings: (body.texts as string[]).map((text) => vectorOf(text, 1024)) });
    }
    refuse("a model the stub does not know");
    return answer(response, 400, { message: "unknown model" }, "ValidationException");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    invocations,
    reranks,
    violations,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
