import { beforeAll, describe, expect, it } from "vitest";
import { ingestAndWait, newNamespace, type TestNamespace } from "../support/ingestion.ts";
import { useLocalStack } from "../support/local-stack.ts";

const api = useLocalStack();

const visitor = (method: string, path: string, body?: unknown) => api.request(method, path, { key: null, ...(body === undefined ? {} : { body }) });

async function publish(ns: TestNamespace, settings: Record<string, unknown>): Promise<string> {
  expect((await ns.call("POST", "/hosting")).status).toBe(201);
  const updated = await ns.call("PATCH", "/hosting", { body: settings });
  expect(updated.status, JSON.stringify(updated.body)).toBe(200);
  return updated.body.data.slug;
}

const PAGE = {
  protected: false,
  title: "Acme <Support> & Help",
  welcomeMessage: "Ask about refunds, shipping and warranties.",
  exampleQuestions: ["How long do refunds take?"],
  exampleSearchQueries: ["refund window"],
  logo: "https://cdn.example.com/acme.png",
  ogDescription: "Acme's help centre",
  citationMetadataPath: "source.url",
  topK: 5,
  rerankLimit: 3,
};

let ns: TestNamespace;
let slug: string;

beforeAll(async () => {
  ns = await newNamespace(api);
  const refunds = await ingestAndWait(ns, { type: "TEXT", text: "Refunds are paid within 14 days of the returned parcel arriving at the warehouse.", fileName: "refunds.md" }, {
    metadata: { "source.url": "https://help.example.com/refunds" },
  });
  expect(refunds.document.status).toBe("COMPLETED");
  // A tenant's record with the same words: a visitor must never see it.
  const created = await ns.call("POST", "/ingest-jobs", {
    body: { payload: { type: "TEXT", text: "Refunds for tenant beta are paid within 3 days: a secret arrangement.", fileName: "beta.md" } },
    headers: { "x-tenant-id": "beta" },
  });
  expect(created.status).toBe(201);
  const deadline = Date.now() + 30_000;
  while ((await ns.call("GET", `/ingest-jobs/${created.body.data.id}`, { headers: { "x-tenant-id": "beta" } })).body.data.status !== "COMPLETED") {
    if (Date.now() > deadline) throw new Error("tenant job did not complete");
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  slug = await publish(ns, PAGE);
});

describe("hosted pages", () => {
  it("serves the page without a key, built from the hosting configuration, escaped, with og tags and a strict CSP", async () => {
    const page = await visitor("GET", `/hosted/${slug}`);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toContain("text/html");
    const html = String(page.body);
    expect(html).toContain("<title>Acme &lt;Support&gt; &amp; Help</title>");
    expect(html).not.toContain("<Support>");
    expect(html).toContain('<meta property="og:title" content="Acme &lt;Support&gt; &amp; Help">');
    expect(html).toContain('<meta property="og:description" content="Acme&#39;s help centre">');
    expect(html).toContain('<meta property="og:image" content="https://cdn.example.com/acme.png">');
    expect(html).toContain("Ask about refunds, shipping and warranties.");
    expect(html).toContain("How long do refunds take?");
    expect(html).toContain("refund window");
    expect(html).toMatch(/<label for="search-query">/);
    const csp = page.headers.get("content-security-policy") ?? "";
    expect(csp).toContain("default-src 'none'");
    const nonce = /script-src 'nonce-([^']+)'/.exec(csp)?.[1];
    expect(nonce).toBeTruthy();
    expect(html).toContain(`<script nonce="${nonce}">`);
    expect(page.headers.get("cache-control")).toBe("no-store");
  });

  it("searches untenanted records with the hosting's topK and reranker settings, with document names and citations", async () => {
    const response = await visitor("POST", `/hosted/${slug}/search`, { query: "how long until refunds are paid" });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    const hits = response.body.data as { text: string; documentName: string | null; citation: string | null; score: number }[];
    expect(hits.length).toBeGreaterThan(0);
    expect(hits.length).toBeLessThanOrEqual(3);
    expect(hits[0]).toMatchObject({ documentName: "refunds.md", citation: "https://help.example.com/refunds" });
    expect(typeof hits[0]!.score).toBe("number");
    expect(JSON.stringify(hits)).not.toContain("secret arrangement");
  });

  it("refuses a protected page and a page whose search is off, and validates the query", async () => {
    const closed = await newNamespace(api);
    const closedSlug = await publish(closed, { title: "Closed" });
    expect((await visitor("GET", `/hosted/${closedSlug}`)).status).toBe(403);
    const refused = await visitor("POST", `/hosted/${closedSlug}/search`, { query: "anything" });
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toMatch(/protected/);

    await closed.call("PATCH", "/hosting", { body: { protected: false, searchEnabled: false } });
    expect((await visitor("GET", `/hosted/${closedSlug}`)).status).toBe(200);
    expect((await visitor("POST", `/hosted/${closedSlug}/search`, { query: "anything" })).status).toBe(403);
    expect((await visitor("POST", `/hosted/${slug}/search`, { query: "   " })).status).toBe(422);
    expect((await visitor("POST", `/hosted/${slug}/search`, {})).status).toBe(422);
  });

  it("moves with its slug and goes away with its hosting or its namespace, at once", async () => {
    const moving = await newNamespace(api);
    const first = await publish(moving, { protected: false });
    expect((await visitor("GET", `/hosted/${first}`)).status).toBe(200);
    const second = `moved-${Math.random().toString(36).slice(2, 10)}`;
    expect((await moving.call("PATCH", "/hosting", { body: { slug: second } })).status).toBe(200);
    expect((await visitor("GET", `/hosted/${first}`)).status).toBe(404);
    expect((await visitor("GET", `/hosted/${second}`)).status).toBe(200);

    expect((await moving.call("DELETE", "/hosting")).status).toBe(200);
    expect((await visitor("GET", `/hosted/${second}`)).status).toBe(404);
    expect((await visitor("POST", `/hosted/${second}/search`, { query: "refunds" })).status).toBe(404);

    const doomed = await newNamespace(api);
    const doomedSlug = await publish(doomed, { protected: false });
    expect((await doomed.call("DELETE", "")).status).toBe(200);
    expect((await visitor("GET", `/hosted/${doomedSlug}`)).status).toBe(404);
    expect((await visitor("GET", "/hosted/no-such-page-here")).status).toBe(404);
    expect((await visitor("GET", "/hosted/NOT_A_SLUG")).status).toBe(400);
  });

  it("limits searches per visitor: the 31st in a minute is a 429 with Retry-After", async () => {
    const busy = await newNamespace(api);
    const busySlug = await publish(busy, { protected: false });
    // Start at a fresh minute so the window cannot roll over mid-test.
    const intoMinute = Date.now() % 60_000;
    if (intoMinute > 50_000) await new Promise((resolve) => setTimeout(resolve, 60_000 - intoMinute + 50));
    for (let index = 0; index < 30; index++) {
      expect((await visitor("POST", `/hosted/${busySlug}/search`, { query: `question ${index}` })).status).toBe(200);
    }
    const limited = await visitor("POST", `/hosted/${busySlug}/search`, { query: "one more" });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(Number(limited.headers.get("retry-after"))).toBeLessThanOrEqual(60);
    // Another page is counted on its own.
    expect((await visitor("POST", `/hosted/${slug}/search`, { query: "refunds" })).status).toBe(200);
  });
});
