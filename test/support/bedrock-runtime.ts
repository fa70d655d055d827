import { createServer, type Http2Server } from "node:http2";
import { answer, readJson } from "./aws-json-server.ts";

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

export async function startBedrockRuntimeStub(): Promise<BedrockRuntimeStub> {
  const invocations: BedrockInvocation[] = [];
  const violations: string[] = [];
  const server: Http2Server = createServer(async (request, response) => {
    const { body } = await readJson(request);
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
    violations,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
