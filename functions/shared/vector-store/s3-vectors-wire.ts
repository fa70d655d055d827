/**
 * The request and response fields of S3 Vectors' full-text search that the pinned
 * `@aws-sdk/client-s3vectors` (3.1137.0, the newest published) does not model yet: `indexMode` and
 * `metadataConfiguration.textSearchConfigurations` on CreateIndex, `queryTexts` on QueryVectors, and
 * each result's `scores` (`bm25Scores`, `fused`). The SDK serializes only the members it knows and
 * parses only those it knows, so this adds them on the wire for one command at a time: after the
 * SDK has serialized the request body (and before it is signed) the fields are merged into the JSON,
 * and the raw JSON of the response is kept for the caller next to the parsed output.
 *
 * Field names and shapes are those of the S3 Vectors API reference (QueryVectors, CreateIndex,
 * TextSearchConfiguration, QueryScores). Once the SDK models them this module goes away.
 */

/** One full-text query: the text, searched in one metadata key configured for full-text search. */
export interface QueryText {
  metadataKey: string;
  text: string;
}

export interface TextSearchConfiguration {
  metadataKey: string;
  /** A language analyzer (`en`, `fr`, …); the standard analyzer when absent. */
  language?: string;
}

/** What S3 Vectors returns per result of a full-text or hybrid query (QueryScores). */
export interface QueryScores {
  bm25Scores?: { metadataKey?: string; score?: number }[];
  fused?: number;
  vectorDistance?: number;
}

/** The raw JSON the service answered, as kept by `withWireFields`. */
export type WireOutput = { $wire?: Record<string, unknown> };

interface MiddlewareStack {
  add(middleware: unknown, options: { step: string; name: string; priority?: string }): void;
}

interface HttpRequestLike {
  body?: unknown;
  headers: Record<string, string>;
}

interface HttpResponseLike {
  body?: unknown;
}

const CONTEXT_KEY = "kisS3VectorsWire";

async function bodyBytes(body: unknown): Promise<Uint8Array> {
  if (typeof body === "string") return new TextEncoder().encode(body);
  if (body instanceof Uint8Array) return body;
  const chunks: Uint8Array[] = [];
  for await (const chunk of body as AsyncIterable<Uint8Array | string>) chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks);
}

function merge(target: Record<string, unknown>, extra: Record<string, unknown>): void {
  for (const [key, value] of Object.entries(extra)) {
    const existing = target[key];
    if (value && typeof value === "object" && !Array.isArray(value) && existing && typeof existing === "object" && !Array.isArray(existing)) {
      merge(existing as Record<string, unknown>, value as Record<string, unknown>);
    } else {
      target[key] = value;
    }
  }
}

/**
 * Sends `extra` with the command (deep-merged into the JSON body the SDK built) and keeps the raw
 * JSON of the answer in the output's `$wire`. Returns the command.
 */
export function withWireFields<C extends object>(command: C, extra: Record<string, unknown>): C {
  // The SDK's stack is typed per step; these middleware are written against the shapes they touch.
  const stack = (command as unknown as { middlewareStack: MiddlewareStack }).middlewareStack;
  // Inside the serializer (it has built `request`), outside signing: the signature covers the merge.
  stack.add(
    (next: (args: { request: HttpRequestLike }) => Promise<unknown>) => async (args: { request: HttpRequestLike }) => {
      const request = args.request;
      // Decoded without string methods on the SDK's body object (it warns of those).
      const text = request.body === undefined ? "{}" : new TextDecoder().decode(await bodyBytes(request.body));
      const body = JSON.parse(text || "{}") as Record<string, unknown>;
      merge(body, extra);
      request.body = JSON.stringify(body);
      request.headers["content-length"] = String(Buffer.byteLength(request.body as string));
      return next(args);
    },
    { step: "build", name: "kisS3VectorsWireRequest", priority: "high" },
  );
  // Innermost, next to the HTTP handler: reads the raw answer before the SDK parses (and drops) it.
  stack.add(
    (next: (args: unknown) => Promise<{ response: HttpResponseLike }>, context: Record<string, unknown>) => async (args: unknown) => {
      const result = await next(args);
      const bytes = await bodyBytes(result.response.body ?? new Uint8Array());
      result.response.body = bytes;
      try {
        context[CONTEXT_KEY] = JSON.parse(Buffer.from(bytes).toString("utf8"));
      } catch {
        // Not JSON (an error page): the SDK's own parsing reports it.
      }
      return result;
    },
    { step: "deserialize", name: "kisS3VectorsWireResponse", priority: "low" },
  );
  // Outermost: hands the raw answer over with the parsed output.
  stack.add(
    (next: (args: unknown) => Promise<{ output: WireOutput }>, context: Record<string, unknown>) => async (args: unknown) => {
      const result = await next(args);
      const raw = context[CONTEXT_KEY];
      if (raw && typeof raw === "object") result.output.$wire = raw as Record<string, unknown>;
      return result;
    },
    { step: "initialize", name: "kisS3VectorsWireOutput", priority: "low" },
  );
  return command;
}

/** The BM25 score of each result of a full-text query, by vector key, from the raw answer. */
export function bm25ScoresOf(output: WireOutput): Map<string, number> {
  const scores = new Map<string, number>();
  const vectors = (output.$wire?.vectors ?? []) as { key?: string; scores?: QueryScores }[];
  for (const vector of vectors) {
    const score = (vector.scores?.bm25Scores ?? []).reduce((sum, entry) => sum + (entry.score ?? 0), 0);
    if (vector.key) scores.set(vector.key, score);
  }
  return scores;
}
