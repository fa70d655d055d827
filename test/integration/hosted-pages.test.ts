import { rm, writeFile } from "node:fs/promises";
import { request as httpRequest } from "node:http";
import { join } from "node:path";
import { ScanCommand } from "@aws-sdk/client-dynamodb";
import { beforeAll, describe, expect, it } from "vitest";
import { serviceSecret } from "../../functions/shared/db/service-secret.ts";
import type { HostedSearchHit } from "../../functions/shared/domain/hosted/page.ts";
import { ENV } from "../../functions/shared/platform/env-names.ts";
import { crashTimes, setFaultInjector } from "../../functions/shared/platform/fault-points.ts";
import { SESSION_COOKIE, signSession } from "../../functions/shared/domain/hosted/access.ts";
import { deliverSignIn, SIGN_IN_LIMITS } from "../../functions/shared/workflows/hosted/sign-in.ts";
import { documentsOfJob, ingestAndWait, ingestForTenant, newNamespace, type TestNamespace, upload, waitForJob } from "../support/ingestion.ts";
import { useLocalStack } from "../support/local-stack.ts";
import { mailAfterQueue } from "../support/outbox.ts";
import { pageHeading, textPdf } from "../fixtures/documents.ts";

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
  await ingestForTenant(ns, "beta", { type: "TEXT", text: "Refunds for tenant beta are paid within 3 days: a secret arrangement.", fileName: "beta.md" });
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
    // No model on the local stack: an example question would be a button that cannot be answered.
    expect(html).not.toContain("How long do refunds take?");
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

  it("turns off its search tab when searchEnabled is false, and validates the query", async () => {
    const closed = await newNamespace(api);
    const closedSlug = await publish(closed, { title: "Closed", protected: false, searchEnabled: false });
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

  it("answers an unknown slug with a 404 on every route, and writes nothing for it", async () => {
    const unknown = `no-such-page-${Date.now()}`;
    for (const [method, path, body] of [
      ["GET", `/hosted/${unknown}`, undefined],
      ["POST", `/hosted/${unknown}/search`, { query: "refunds" }],
      ["POST", `/hosted/${unknown}/chat`, { messages: [{ role: "user", content: "refunds?" }] }],
      ["POST", `/hosted/${unknown}/sign-in`, { email: "ada@example.org" }],
      ["GET", `/hosted/${unknown}/session?token=${"a".repeat(43)}`, undefined],
    ] as const) {
      for (let attempt = 0; attempt < 3; attempt++) expect((await visitor(method, path, body)).status, `${method} ${path}`).toBe(404);
    }
    const { Items } = await api.stack().clients.dynamo.send(
      new ScanCommand({ TableName: api.stack().resources.tableName, FilterExpression: "contains(PK, :slug)", ExpressionAttributeValues: { ":slug": { S: unknown } } }),
    );
    expect(Items).toEqual([]);
  });

  it("limits searches per visitor: the 31st in a minute is a 429 with Retry-After", async () => {
    const busy = await newNamespace(api);
    const busySlug = await publish(busy, { protected: false });
    // The counters count at a pinned instant, 20 s into a minute, so the window cannot roll over mid-test.
    process.env[ENV.hostedRateClockMs] = String(Date.UTC(2030, 0, 1, 0, 0, 20));
    try {
      for (let index = 0; index < 30; index++) {
        expect((await visitor("POST", `/hosted/${busySlug}/search`, { query: `question ${index}` })).status).toBe(200);
      }
      const limited = await visitor("POST", `/hosted/${busySlug}/search`, { query: "one more" });
      expect(limited.status).toBe(429);
      expect(limited.headers.get("retry-after")).toBe("40");
      // Another page is counted on its own.
      expect((await visitor("POST", `/hosted/${slug}/search`, { query: "refunds" })).status).toBe(200);
    } finally {
      delete process.env[ENV.hostedRateClockMs];
    }
  });
});

describe("the search tab's hits", () => {
  it("carry a snippet of at most about 300 characters around the best passage and the query's words, matched by stem", async () => {
    const long = await newNamespace(api);
    const filler = "The catalogue lists every product line with its colours and sizes. ".repeat(12);
    const text = `${filler}Refunded orders are paid back within 14 days once the parcel reaches the warehouse. ${filler}`;
    const { document } = await ingestAndWait(long, { type: "TEXT", text, fileName: "policies.md" }, { metadata: { "source.url": "https://help.example.com/policies" } });
    const longSlug = await publish(long, { protected: false, citationMetadataPath: "source.url" });

    const response = await visitor("POST", `/hosted/${longSlug}/search`, { query: "how are refunds paid" });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    const hit = (response.body.data as HostedSearchHit[]).find((candidate) => candidate.text.includes("Refunded orders"))!;
    expect(hit).toMatchObject({ documentId: document.id, documentName: "policies.md", citation: "https://help.example.com/policies", location: null, sourceFile: false });
    const snippet = hit.text.slice(hit.snippet.start, hit.snippet.end);
    expect(hit.text.length).toBeGreaterThan(600);
    expect(snippet.length).toBeLessThanOrEqual(300);
    expect(snippet).toContain("Refunded orders are paid back");
    expect(hit.highlights.map((range) => hit.text.slice(range.start, range.end))).toEqual(["Refunded", "paid"]);
  });

  describe("source files", () => {
    let files: TestNamespace;
    let filesSlug: string;
    let fileDocument: string;
    let textDocument: string;
    let tenantDocument: string;
    const body = "# Warranty\n\nEvery kettle carries a two-year warranty against defects.\n";

    beforeAll(async () => {
      files = await newNamespace(api);
      const key = await upload(files, "warranty.md", "text/markdown", body);
      const job = await files.call("POST", "/ingest-jobs", { body: { payload: { type: "MANAGED_FILE", key, fileName: "warranty.md" } } });
      expect(job.status, JSON.stringify(job.body)).toBe(201);
      expect((await waitForJob(files, job.body.data.id)).status).toBe("COMPLETED");
      fileDocument = (await documentsOfJob(files, job.body.data.id))[0].id;
      textDocument = (await ingestAndWait(files, { type: "TEXT", text: "Kettles bought in a shop carry the shop's warranty too.", fileName: "shops.md" })).document.id;
      const tenantKey = await upload(files, "tenant.md", "text/markdown", "Tenant kettles have a private warranty.");
      const tenantJob = await files.call("POST", "/ingest-jobs", { body: { payload: { type: "MANAGED_FILE", key: tenantKey } }, headers: { "x-tenant-id": "delta" } });
      await waitForJob(files, tenantJob.body.data.id, ["COMPLETED"], { "x-tenant-id": "delta" });
      tenantDocument = (await documentsOfJob(files, tenantJob.body.data.id, { "x-tenant-id": "delta" }))[0].id;
      const pdfKey = await upload(files, "handbook.pdf", "application/pdf", await textPdf({ pages: 3 }));
      const pdfJob = await files.call("POST", "/ingest-jobs", { body: { payload: { type: "MANAGED_FILE", key: pdfKey, fileName: "handbook.pdf" } } });
      expect((await waitForJob(files, pdfJob.body.data.id)).status).toBe("COMPLETED");
      filesSlug = await publish(files, { protected: false });
    });

    it("say on which page of a paged document each hit starts", async () => {
      const hits = (await visitor("POST", `/hosted/${filesSlug}/search`, { query: `${pageHeading(2)} ${pageHeading(3)} marker` })).body.data as HostedSearchHit[];
      const pdfHits = hits.filter((hit) => hit.documentName === "handbook.pdf");
      expect(pdfHits.length).toBeGreaterThan(1);
      for (const hit of pdfHits) expect(hit.location?.page, hit.text.slice(0, 80)).toBeGreaterThanOrEqual(1);
      expect(pdfHits.some((hit) => hit.location!.page! > 1)).toBe(true);
      expect(pdfHits.every((hit) => hit.sourceFile)).toBe(true);
    });

    const fileRoute = (documentId: string, slugName = filesSlug) => fetch(`${api.stack().baseUrl}/hosted/${slugName}/documents/${documentId}/file`, { redirect: "manual" });

    it("offers the uploaded file of a hit without a citation, as a redirect to a download that lasts minutes", async () => {
      const hits = (await visitor("POST", `/hosted/${filesSlug}/search`, { query: "kettle warranty" })).body.data as HostedSearchHit[];
      expect(hits.find((hit) => hit.documentId === fileDocument)).toMatchObject({ sourceFile: true, citation: null });
      expect(hits.find((hit) => hit.documentId === textDocument)).toMatchObject({ sourceFile: false });
      expect(hits.some((hit) => hit.documentId === tenantDocument)).toBe(false);

      const redirect = await fileRoute(fileDocument);
      expect(redirect.status).toBe(302);
      expect(redirect.headers.get("cache-control")).toBe("no-store");
      const location = new URL(redirect.headers.get("location")!);
      expect(location.searchParams.get("X-Amz-Expires")).toBe("300");
      const download = await fetch(location);
      expect(download.status).toBe(200);
      expect(await download.text()).toBe(body);
      expect(download.headers.get("content-disposition")).toContain('filename="warranty.md"');
    });

    it("refuses, as not found alike, a TEXT document, a tenant's document and another namespace's document", async () => {
      for (const documentId of [textDocument, tenantDocument, "doc_doesnotexist0000"]) {
        const refused = await fileRoute(documentId);
        expect(refused.status, documentId).toBe(404);
        expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("not_found");
      }
      // The document exists and has a file, but belongs to another page's namespace.
      expect((await fileRoute(fileDocument, slug)).status).toBe(404);
      expect((await fileRoute("not-a-document-id")).status).toBe(400);
    });

    it("keeps a protected page's files behind its sign-in", async () => {
      expect((await files.call("PATCH", "/hosting", { body: { protected: true, allowedEmails: ["ann@example.com"] } })).status).toBe(200);
      try {
        expect((await fileRoute(fileDocument)).status).toBe(403);
      } finally {
        await files.call("PATCH", "/hosting", { body: { protected: false } });
      }
    });
  });
});

const mailTo = (address: string) => mailAfterQueue(api, address);

/** Follows nothing: the sign-in link answers a redirect whose cookie the test keeps. */
async function openLink(link: string) {
  return fetch(link.replace(/^https?:\/\/[^/]+/, api.stack().baseUrl), { redirect: "manual" });
}

/** What the link page's button does: posts the token as a form, from the page's own origin. */
async function postToken(link: string, token: string, origin = api.stack().baseUrl) {
  const target = link.replace(/^https?:\/\/[^/]+/, api.stack().baseUrl).replace(/\?.*$/, "");
  return fetch(target, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", origin },
    body: new URLSearchParams({ token }).toString(),
  });
}

describe("protected hosted pages", () => {
  let guarded: TestNamespace;
  let guardedSlug: string;
  beforeAll(async () => {
    guarded = await newNamespace(api);
    await ingestAndWait(guarded, { type: "TEXT", text: "The staff handbook says onboarding takes three days.", fileName: "handbook.md" });
    guardedSlug = await publish(guarded, {
      title: "Staff only",
      welcomeMessage: "Internal handbook",
      allowedEmails: ["Ada@Example.org"],
      allowedEmailDomains: ["staff.example.com"],
    });
  });

  it("shows a stranger only the title and the sign-in form, and refuses its search", async () => {
    const page = await visitor("GET", `/hosted/${guardedSlug}`);
    expect(page.status).toBe(200);
    const html = String(page.body);
    expect(html).toContain("Staff only");
    expect(html).toContain('<label for="sign-in-email">');
    expect(html).not.toContain("Internal handbook");
    const search = await visitor("POST", `/hosted/${guardedSlug}/search`, { query: "onboarding" });
    expect(search.status).toBe(403);
    expect(search.body.error.message).toMatch(/protected/);
  });

  it("mails a one-time link to an allowed address only, answering every address alike", async () => {
    const stranger = await visitor("POST", `/hosted/${guardedSlug}/sign-in`, { email: "eve@evil.example" });
    const allowed = await visitor("POST", `/hosted/${guardedSlug}/sign-in`, { email: "ada@example.org" });
    expect(stranger.status).toBe(200);
    expect(allowed.status).toBe(200);
    expect(stranger.body).toEqual(allowed.body);
    expect(await mailTo("eve@evil.example")).toEqual([]);
    const [mail] = await mailTo("ada@example.org");
    expect(mail!.subject).toMatch(new RegExp(`^Your sign-in link for 127\\.0\\.0\\.1:\\d+/hosted/${guardedSlug}$`));
    expect(mail!.text).toMatch(new RegExp(`http://127\\.0\\.0\\.1:\\d+/hosted/${guardedSlug}/session\\?token=[A-Za-z0-9_-]{43}`));
    expect((await visitor("POST", `/hosted/${guardedSlug}/sign-in`, { email: "not an address" })).status).toBe(422);
  });

  it("mails links to the service's own address whatever Host header the visitor sends", async () => {
    const base = new URL(api.stack().baseUrl);
    const body = JSON.stringify({ email: "hedy@staff.example.com" });
    const status = await new Promise<number>((resolve, reject) => {
      const sent = httpRequest(
        { host: base.hostname, port: base.port, method: "POST", path: `/hosted/${guardedSlug}/sign-in`, headers: { host: "evil.example", "content-type": "application/json" } },
        (response) => {
          response.resume();
          response.on("end", () => resolve(response.statusCode ?? 0));
        },
      );
      sent.on("error", reject);
      sent.end(body);
    });
    expect(status).toBe(200);
    const [mail] = await mailTo("hedy@staff.example.com");
    expect(mail!.text).toContain(`${api.stack().baseUrl}/hosted/${guardedSlug}/session?token=`);
    expect(mail!.text).not.toContain("evil.example");
  });

  it("admits an allowed visitor through the link: a signed, HttpOnly, SameSite cookie scoped to the page, used once", async () => {
    await visitor("POST", `/hosted/${guardedSlug}/sign-in`, { email: "grace@staff.example.com" });
    const [mail] = await mailTo("grace@staff.example.com");
    const link = /http\S+/.exec(mail!.text)![0];
    // Opening the link (as a mail scanner would, twice) shows a button and uses nothing up.
    for (let fetched = 0; fetched < 2; fetched++) {
      const page = await openLink(link);
      expect(page.status).toBe(200);
      expect(page.headers.get("set-cookie")).toBeNull();
      expect(await page.text()).toMatch(/<form method="post">[\s\S]*<button type="submit">Sign in<\/button>/);
    }
    const token = new URL(link).searchParams.get("token")!;
    expect((await postToken(link, token, "https://evil.example")).status).toBe(403);
    const opened = await postToken(link, token);
    expect(opened.status).toBe(303);
    expect(opened.headers.get("location")).toBe(`/hosted/${guardedSlug}`);
    const setCookie = opened.headers.get("set-cookie") ?? "";
    expect(setCookie).toMatch(new RegExp(`^${SESSION_COOKIE}=[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+; Path=/hosted/${guardedSlug}; Max-Age=604800; HttpOnly; SameSite=Lax$`));
    const cookie = setCookie.split(";")[0]!;

    const page = await api.request("GET", `/hosted/${guardedSlug}`, { key: null, headers: { cookie } });
    expect(String(page.body)).toContain("Internal handbook");
    const search = await api.request("POST", `/hosted/${guardedSlug}/search`, { key: null, headers: { cookie }, body: { query: "how long is onboarding" } });
    expect(search.status, JSON.stringify(search.body)).toBe(200);
    expect(search.body.data[0].text).toContain("onboarding takes three days");

    const again = await postToken(link, token);
    expect(again.status).toBe(400);
    expect(again.headers.get("set-cookie")).toBeNull();
  });

  it("refuses forged, expired and foreign cookies, and a visitor whose address was removed", async () => {
    const searchWith = (cookie: string) => api.request("POST", `/hosted/${guardedSlug}/search`, { key: null, headers: { cookie }, body: { query: "onboarding" } });
    const secret = await serviceSecret("hosted-page-sessions");
    const now = Math.floor(Date.now() / 1000);
    const valid = signSession({ namespaceId: guarded.namespaceId, email: "ada@example.org", expiresAt: now + 600 }, secret);
    expect((await searchWith(`${SESSION_COOKIE}=${valid}`)).status).toBe(200);

    const [payload, signature] = valid.split(".");
    const tampered = Buffer.from(JSON.stringify({ namespaceId: guarded.namespaceId, email: "eve@staff.example.com", expiresAt: now + 600 })).toString("base64url");
    expect((await searchWith(`${SESSION_COOKIE}=${tampered}.${signature}`)).status).toBe(403);
    expect((await searchWith(`${SESSION_COOKIE}=${payload}.${signature!.slice(0, -2)}AA`)).status).toBe(403);
    const expired = signSession({ namespaceId: guarded.namespaceId, email: "ada@example.org", expiresAt: now - 1 }, secret);
    expect((await searchWith(`${SESSION_COOKIE}=${expired}`)).status).toBe(403);
    const foreign = signSession({ namespaceId: "ns_someoneelse", email: "ada@example.org", expiresAt: now + 600 }, secret);
    expect((await searchWith(`${SESSION_COOKIE}=${foreign}`)).status).toBe(403);

    expect((await guarded.call("PATCH", "/hosting", { body: { allowedEmails: [] } })).status).toBe(200);
    expect((await searchWith(`${SESSION_COOKIE}=${valid}`)).status).toBe(403);
  });
});

describe("hosted-page sign-in cannot be abused", () => {
  /** A protected page of its own (each page has its own per-visitor limit), allowing `addresses`. */
  async function protectedPage(addresses: string[], settings: Record<string, unknown> = {}) {
    const owner = await newNamespace(api);
    const pageSlug = await publish(owner, { title: "Staff only", allowedEmails: addresses, ...settings });
    return { owner, pageSlug, signIn: (email: string) => visitor("POST", `/hosted/${pageSlug}/sign-in`, { email }) };
  }

  it("refuses line breaks and control characters in hosting text, naming the field", async () => {
    const owner = await newNamespace(api);
    expect((await owner.call("POST", "/hosting")).status).toBe(201);
    for (const [field, value] of [
      ["title", "Help\r\nBcc: victim@example.com"],
      ["ogTitle", "a\u0000b"],
      ["welcomeMessage", "line one\r\nline two"],
    ] as const) {
      const refused = await owner.call("PATCH", "/hosting", { body: { [field]: value } });
      expect(refused.status, `${field}: ${JSON.stringify(refused.body)}`).toBe(422);
      expect(refused.body.error.message).toMatch(new RegExp(`^${field}: `));
    }
    expect((await owner.call("GET", "/hosting")).body.data.title).not.toContain("Bcc");
  });

  it("mails only what the service writes: the page's host and slug, never the owner's title", async () => {
    const { pageSlug, signIn } = await protectedPage(["kay@example.org"], { title: "WIN A PRIZE at https://spam.example now" });
    expect((await signIn("kay@example.org")).status).toBe(200);
    const [mail] = await mailTo("kay@example.org");
    expect(mail!.subject).toBe(`Your sign-in link for ${new URL(api.stack().baseUrl).host}/hosted/${pageSlug}`);
    for (const text of [mail!.subject, mail!.text]) {
      expect(text).not.toMatch(/PRIZE|spam\.example/);
    }
  });

  it("answers an address whose mail cannot be sent exactly like a stranger, and counts the failure instead", async () => {
    const { signIn } = await protectedPage(["lee@example.org"]);
    const outbox = process.env.EMAIL_OUTBOX_DIR;
    // The failure is counted through a log line CloudWatch reads as a metric (Embedded Metric Format).
    const logged: string[] = [];
    const streams = [process.stdout, process.stderr];
    const writes = streams.map((stream) => stream.write.bind(stream));
    streams.forEach((stream, index) => {
      stream.write = ((chunk: string | Uint8Array, ...rest: never[]) => {
        logged.push(String(chunk));
        return writes[index]!(chunk, ...rest);
      }) as typeof stream.write;
    });
    // The sender fails as SES does for a recipient it rejects: the outbox cannot be written.
    const blocker = join(api.stack().outboxDir, "..", `not-a-folder-${process.pid}`);
    await writeFile(blocker, "");
    process.env.EMAIL_OUTBOX_DIR = join(blocker, "outbox");
    try {
      const failing = await signIn("lee@example.org");
      const stranger = await signIn("eve@evil.example");
      await mailAfterQueue(api, "lee@example.org");
      expect(failing.status).toBe(200);
      expect(stranger.status).toBe(200);
      expect(failing.body).toEqual(stranger.body);
      expect(failing.headers.get("content-length")).toBe(stranger.headers.get("content-length"));
    } finally {
      streams.forEach((stream, index) => (stream.write = writes[index]!));
      process.env.EMAIL_OUTBOX_DIR = outbox;
      await rm(blocker, { force: true });
    }
    const failures = logged.flatMap((line) => line.split("\n")).filter((line) => line.includes('"SignInMailFailures":1'));
    expect(failures).toHaveLength(1);
    const metric = JSON.parse(failures[0]!) as { _aws: { CloudWatchMetrics: { Namespace: string; Metrics: { Name: string }[] }[] }; message: string };
    expect(metric._aws.CloudWatchMetrics[0]!.Metrics).toEqual([{ Name: "SignInMailFailures", Unit: "Count" }]);
    expect(JSON.stringify(metric)).not.toContain("lee@example.org");
    expect(await mailTo("lee@example.org")).toEqual([]);
    // The failure gave the pending link back: the next request sends one.
    expect((await signIn("lee@example.org")).status).toBe(200);
    expect(await mailTo("lee@example.org")).toHaveLength(1);
  });

  it("keeps one pending link per address: strangers' repeated requests send nothing new and lock no one out", async () => {
    const { pageSlug, signIn } = await protectedPage(["mia@example.org"]);
    // Five requests, the per-visitor limit of a minute: every one answered alike, one mail.
    const answers = await Promise.all(Array.from({ length: 5 }, () => signIn("mia@example.org")));
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200]);
    const mails = await mailTo("mia@example.org");
    expect(mails).toHaveLength(1);
    // The visitor still has the one link, and it works.
    const link = /http\S+/.exec(mails[0]!.text)![0];
    const token = new URL(link).searchParams.get("token")!;
    expect((await postToken(link, token)).status).toBe(303);
    // The sixth request from the same visitor within the minute is the per-visitor 429, as before.
    const limited = await signIn("someone@example.org");
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toMatch(/^\d+$/);
    expect(pageSlug).toBeTruthy();
  });

  it("sends a new link once the pending one is used", async () => {
    const { signIn } = await protectedPage(["ned@example.org"]);
    expect((await signIn("ned@example.org")).status).toBe(200);
    const [first] = await mailTo("ned@example.org");
    const link = /http\S+/.exec(first!.text)![0];
    expect((await postToken(link, new URL(link).searchParams.get("token")!)).status).toBe(303);
    expect((await signIn("ned@example.org")).status).toBe(200);
    expect(await mailTo("ned@example.org")).toHaveLength(2);
  });

  it("sends the link on the queue's retry when the first try failed after claiming the address's pending link", async () => {
    const { owner, pageSlug } = await protectedPage(["pia@example.org"]);
    const request = { namespaceId: owner.namespaceId, slug: pageSlug, email: "pia@example.org", pageUrl: `${api.stack().baseUrl}/hosted/${pageSlug}` };
    // The worker's own step, as the queue delivers it: the first delivery dies between claim and send.
    const fault = crashTimes("sign-in:link-claimed", 1);
    setFaultInjector(fault.injector);
    try {
      await expect(deliverSignIn(request)).rejects.toThrow(/simulated crash/);
      expect(fault.crashes()).toBe(1);
      expect(await deliverSignIn(request)).toBe("sent");
    } finally {
      setFaultInjector(null);
    }
    expect(await mailTo("pia@example.org")).toHaveLength(1);
  });

  it("caps the sign-in mails one organization sends in an hour, over all its addresses", async () => {
    const { owner, pageSlug } = await protectedPage([], { allowedEmailDomains: ["cap.example"] });
    const cap = SIGN_IN_LIMITS.mailsPerOrganizationPerHour;
    // The worker's own step, called as the queue would, at one instant so the hour cannot turn mid-test.
    const now = Date.now();
    const outcomes: string[] = [];
    for (let index = 0; index < cap + 3; index++) {
      const request = { namespaceId: owner.namespaceId, slug: pageSlug, email: `member${index}@cap.example`, pageUrl: `${api.stack().baseUrl}/hosted/${pageSlug}` };
      outcomes.push(await deliverSignIn(request, now));
    }
    expect(outcomes.slice(0, cap).every((outcome) => outcome === "sent")).toBe(true);
    expect(outcomes.slice(cap)).toEqual(["capped", "capped", "capped"]);
    expect(await mailTo(`member${cap}@cap.example`)).toEqual([]);
  }, 60_000);

  it("caps the mails one address receives in an hour across every page that allows it", async () => {
    const pages = await Promise.all(Array.from({ length: SIGN_IN_LIMITS.mailsPerAddressPerHour + 2 }, () => protectedPage(["ola@example.org"])));
    for (const page of pages) expect((await page.signIn("ola@example.org")).status).toBe(200);
    expect(await mailTo("ola@example.org")).toHaveLength(SIGN_IN_LIMITS.mailsPerAddressPerHour);
  });
});
