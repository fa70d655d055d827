import { beforeAll, describe, expect, it } from "vitest";
import { chunksOf, ingestAndWait, newNamespace, type TestNamespace } from "../support/ingestion.ts";
import { useLocalStack } from "../support/local-stack.ts";
import { type OpenAiChatServer, startOpenAiChatServer } from "../support/openai-chat-server.ts";

const api = useLocalStack();

// Eight paragraphs, one subject each, so a query finds exactly one chunk in the middle.
const SUBJECTS = ["harbour cranes", "orchard pruning", "glacier retreat", "violin varnish", "tram timetables", "beekeeping hives", "lighthouse lenses", "pottery kilns"];
const LONG_TEXT = SUBJECTS.map((subject, index) => `Paragraph ${index + 1} is about ${subject}. ${"It adds ordinary words to fill the chunk. ".repeat(2)}`).join("\n\n");
// Without repeated sentences, so only the configured overlap is shared between two chunks.
const OVERLAP_SUBJECTS = ["canal locks", "moss gardens", "tide tables", "clock repair", "railway signals", "cheese caves", "kite flying", "salt marshes"];
const OVERLAP_TEXT = OVERLAP_SUBJECTS.map((subject, index) => `Section ${index + 1} covers ${subject}; its notes run ${index * 7 + 3} lines and end here.`).join("\n\n");
const SHORT_TEXT = "Opening line of a short memo.\n\nThe memo's second paragraph mentions saffron risotto.\n\nClosing line with a signature.";

interface Passage {
  text: string;
  hit: { start: number; end: number };
  chunks: { first: number; last: number };
}
type Hit = { id: string; text: string; passage?: Passage };

let ns: TestNamespace;
let longDocument: string;
let longChunks: string[];

async function search(body: Record<string, unknown>): Promise<Hit[]> {
  const response = await ns.call("POST", "/search", { body: { mode: "keyword", topK: 1, ...body } });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body.data;
}

beforeAll(async () => {
  ns = await newNamespace(api);
  const long = await ingestAndWait(ns, { type: "TEXT", text: LONG_TEXT, fileName: "long.md" }, { chunkSize: 120 });
  longDocument = long.document.id;
  longChunks = (await chunksOf(ns, longDocument)).chunks.map((chunk) => chunk.text);
  const overlapping = await ingestAndWait(ns, { type: "TEXT", text: OVERLAP_TEXT, fileName: "overlap.md" }, { chunkSize: 60, chunkOverlap: 25 });
  expect(overlapping.job.status).toBe("COMPLETED");
  expect((await ingestAndWait(ns, { type: "TEXT", text: SHORT_TEXT, fileName: "memo.md" }, { chunkSize: 40 })).job.status).toBe("COMPLETED");
});

describe("neighbour expansion", () => {
  it("joins a hit with the chunks before and after it, the hit marked where it lies", async () => {
    expect(longChunks.length).toBeGreaterThanOrEqual(6);
    const [hit] = await search({ query: "violin varnish", expand: { before: 2, after: 1 } });
    const sequence = Number(hit!.id.split("#")[1]);
    expect(hit!.id.startsWith(`${longDocument}#`)).toBe(true);
    expect(sequence).toBeGreaterThanOrEqual(2);
    const passage = hit!.passage!;
    expect(passage.chunks).toEqual({ first: sequence - 2, last: sequence + 1 });
    expect(passage.text).toBe(longChunks.slice(sequence - 2, sequence + 2).join(""));
    expect(passage.text.slice(passage.hit.start, passage.hit.end)).toBe(hit!.text);
    // The hit's own text is unchanged next to the passage.
    expect(hit!.text).toBe(longChunks[sequence]);
  });

  it("stops at the document's edges", async () => {
    const [hit] = await search({ query: "harbour cranes", expand: { before: 5, after: 0 } });
    expect(hit!.passage!.chunks).toEqual({ first: 0, last: 0 });
    expect(hit!.passage!.text).toBe(hit!.text);
    expect(hit!.passage!.hit).toEqual({ start: 0, end: hit!.text.length });
  });

  it("removes the overlap chunks repeat, so the passage reads as the document does", async () => {
    const [hit] = await search({ query: "railway signals", expand: { before: 1, after: 1 } });
    const passage = hit!.passage!;
    expect(passage.chunks.last - passage.chunks.first).toBe(2);
    expect(OVERLAP_TEXT).toContain(passage.text);
    // Three overlapping chunks are longer together than the text they cover.
    const chunks = (await chunksOf(ns, hit!.id.split("#")[0]!)).chunks.slice(passage.chunks.first, passage.chunks.last + 1).map((chunk) => chunk.text);
    expect(passage.text.length).toBeLessThan(chunks.join("").length);
    expect(passage.text.slice(passage.hit.start, passage.hit.end)).toBe(hit!.text);
  });

  it("returns a short document whole with wholeDocument", async () => {
    const [hit] = await search({ query: "saffron risotto", expand: { before: 0, after: 0, wholeDocument: true } });
    expect(hit!.passage!.text).toBe(SHORT_TEXT);
    expect(SHORT_TEXT.slice(hit!.passage!.hit.start, hit!.passage!.hit.end)).toBe(hit!.text);
  });

  it("leaves results without a passage when expand is not asked for", async () => {
    const [hit] = await search({ query: "violin varnish" });
    expect(hit!.passage).toBeUndefined();
  });

  it("refuses more than five neighbours with a 422 naming the field", async () => {
    const response = await ns.call("POST", "/search", { body: { query: "violin", expand: { before: 6 } } });
    expect(response.status).toBe(422);
    expect(JSON.stringify(response.body.error)).toContain("expand");
  });

  it("gives chat the passage around each source", async () => {
    const model: OpenAiChatServer = await startOpenAiChatServer({ apiKey: "sk-expand" });
    try {
      const response = await ns.call("POST", "/chat", {
        body: {
          query: "What is said about violin varnish?",
          stream: false,
          mode: "keyword",
          topK: 1,
          rerank: false,
          expand: { before: 1, after: 1 },
          llmConfig: { provider: "OPENAI_COMPATIBLE", baseUrl: model.baseUrl, model: "m", apiKey: "sk-expand" },
        },
      });
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      const source = response.body.data.sources[0];
      const sequence = Number(source.id.split("#")[1]);
      expect(source.text).toContain("violin varnish");
      expect(source.text).toBe(longChunks.slice(Math.max(0, sequence - 1), sequence + 2).join(""));
      // The model read the passage, not the hit alone.
      expect(JSON.stringify(model.requests.at(-1)!.body.messages)).toContain(JSON.stringify(longChunks[sequence + 1]).slice(1, -1));
    } finally {
      await model.close();
    }
  });
});
