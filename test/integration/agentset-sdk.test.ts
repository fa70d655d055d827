/**
 * Drives the local stack with the official `agentset` TypeScript SDK, unchanged: every call below
 * goes through the SDK's own request building (paths, Authorization and Content-Type headers,
 * x-tenant-id from FetchOptions, query strings) and its own response and error handling.
 */
import {
  Agentset,
  AgentsetError,
  BadRequestError,
  ConflictError,
  ForbiddenError,
  type IngestJobSchema,
  type IngestJobStatusSchema,
  NotFoundError,
  UnauthorizedError,
  UnprocessableEntityError,
} from "agentset";
import { describe, expect, it } from "vitest";
import { useLocalStack } from "../support/local-stack.ts";

const api = useLocalStack();

type NamespaceClient = ReturnType<Agentset["namespace"]>;
type FullPagination = { nextCursor: string | null; prevCursor: string | null; hasMore: boolean };

function uniqueSlug(prefix = "sdk"): string {
  return `${prefix}-${Math.random().toString(36).slice(2, 10)}`;
}

async function newClient(): Promise<{ client: Agentset; organizationId: string; key: string }> {
  const { organizationId, key } = await api.newOrganization();
  return { client: new Agentset({ apiKey: key, baseUrl: api.stack().baseUrl }), organizationId, key };
}

async function newNamespaceClient(): Promise<{ client: Agentset; ns: NamespaceClient; namespaceId: string }> {
  const { client } = await newClient();
  const created = await client.namespaces.create({ name: "SDK docs", slug: uniqueSlug() });
  return { client, ns: client.namespace(created.id), namespaceId: created.id };
}

/** Polls `ingestion.get` until the job is COMPLETED or FAILED, and returns it. */
async function waitForJob(ns: NamespaceClient, jobId: string, options?: { tenantId?: string }): Promise<IngestJobSchema> {
  let last: IngestJobSchema | undefined;
  await expect
    .poll(
      async () => {
        last = await ns.ingestion.get(jobId, options);
        return last.status;
      },
      { timeout: 60_000, interval: 100 },
    )
    .toSatisfy((status: IngestJobStatusSchema) => status === "COMPLETED" || status === "FAILED");
  return last!;
}

/** Asserts that a promise rejects with the given SDK error class, carrying the server's message. */
async function expectSdkError(promise: Promise<unknown>, errorClass: new (message: string) => AgentsetError, status: number) {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(errorClass);
  const sdkError = error as AgentsetError;
  expect(sdkError.status).toBe(status);
  // The SDK falls back to "HTTP error <status>" only when the body is not the error envelope.
  expect(sdkError.message).not.toBe(`HTTP error ${status}`);
  expect(sdkError.message.length).toBeGreaterThan(0);
  return sdkError;
}

function markdown(sections: number): string {
  const words = ["retrieval", "augmented", "generation", "vector", "namespace", "tenant", "chunk", "embedding", "document", "search"];
  return Array.from({ length: sections }, (_, section) => {
    const sentences = Array.from({ length: 10 }, (_, index) =>
      Array.from({ length: 8 }, (_, w) => words[(section * 7 + index * 3 + w) % words.length]).join(" ").concat(` ${section}-${index}.`),
    );
    return `## Section ${section}\n\n${sentences.join(" ")}\n\n`;
  }).join("");
}

describe("namespaces through the SDK", () => {
  it("creates a namespace (201) and returns it with a prefixed id", async () => {
    const { client, organizationId } = await newClient();
    const slug = uniqueSlug();
    const created = await client.namespaces.create({ name: "Support docs", slug });
    expect(created).toMatchObject({ name: "Support docs", slug, organizationId });
    expect(created.id).toMatch(/^ns_/);
    expect(new Date(created.createdAt).toISOString()).toBe(created.createdAt);
  });

  it("lists, gets and renames namespaces, through the client and through a namespace handle", async () => {
    const { client } = await newClient();
    const first = await client.namespaces.create({ name: "First", slug: uniqueSlug() });
    const second = await client.namespaces.create({ name: "Second", slug: uniqueSlug() });

    const listed = await client.namespaces.list();
    expect(listed.map((namespace) => namespace.id)).toEqual([first.id, second.id]);

    expect(await client.namespaces.get(first.id)).toEqual(first);
    expect(await client.namespace(second.id).get()).toEqual(second);

    const renamed = await client.namespaces.update(first.id, { name: "First, renamed" });
    expect(renamed).toMatchObject({ id: first.id, name: "First, renamed", slug: first.slug });
    expect((await client.namespaces.get(first.id)).name).toBe("First, renamed");

    const newSlug = uniqueSlug("moved");
    const moved = await client.namespace(second.id).update({ slug: newSlug });
    expect(moved).toMatchObject({ id: second.id, name: "Second", slug: newSlug });
  });

  it("finds a namespace by its slug wherever a namespace id is accepted, only within the caller's organization", async () => {
    const { client } = await newClient();
    const namespace = await client.namespaces.create({ name: "By slug", slug: uniqueSlug() });
    expect(await client.namespaces.get(namespace.slug)).toEqual(namespace);
    expect(await client.namespace(namespace.slug).get()).toEqual(namespace);
    const job = await client.namespace(namespace.slug).ingestion.create({ payload: { type: "TEXT", text: "Found through the slug." } });
    expect(job.namespaceId).toBe(namespace.id);
    expect((await client.namespace(namespace.slug).ingestion.all()).jobs.map((listed) => listed.id)).toEqual([job.id]);

    const renamed = uniqueSlug("renamed");
    await client.namespaces.update(namespace.slug, { slug: renamed });
    await expectSdkError(client.namespaces.get(namespace.slug), NotFoundError, 404);
    expect((await client.namespaces.get(renamed)).id).toBe(namespace.id);

    const stranger = await newClient();
    await expectSdkError(stranger.client.namespaces.get(renamed), NotFoundError, 404);
    await expectSdkError(client.namespaces.get("Not_A_Slug"), BadRequestError, 400);
  });

  it("rejects a duplicate slug with ConflictError", async () => {
    const { client } = await newClient();
    const slug = uniqueSlug();
    await client.namespaces.create({ name: "A", slug });
    const error = await expectSdkError(client.namespaces.create({ name: "B", slug }), ConflictError, 409);
    expect(error.code).toBe("conflict");

    const other = await client.namespaces.create({ name: "C", slug: uniqueSlug() });
    await expectSdkError(client.namespaces.update(other.id, { slug }), ConflictError, 409);
  });

  it("rejects an unknown namespace id with NotFoundError", async () => {
    const { client } = await newClient();
    await expectSdkError(client.namespaces.get("ns_0000000000000000000000"), NotFoundError, 404);
    await expectSdkError(client.namespace("ns_0000000000000000000000").ingestion.all(), NotFoundError, 404);
  });

  it("rejects an invalid body with UnprocessableEntityError naming the field", async () => {
    const { client } = await newClient();
    const badSlug = await expectSdkError(client.namespaces.create({ name: "Name", slug: "Not A Slug" }), UnprocessableEntityError, 422);
    expect(badSlug.message).toMatch(/^slug:/);
    const emptyName = await expectSdkError(client.namespaces.create({ name: "", slug: uniqueSlug() }), UnprocessableEntityError, 422);
    expect(emptyName.message).toMatch(/^name:/);
  });

  it("rejects another organization's namespace with ForbiddenError and a bad key with UnauthorizedError", async () => {
    const owner = await newClient();
    const stranger = await newClient();
    const namespace = await owner.client.namespaces.create({ name: "Private", slug: uniqueSlug() });
    await expectSdkError(stranger.client.namespaces.get(namespace.id), ForbiddenError, 403);

    const badKey = new Agentset({ apiKey: `${owner.key}x`, baseUrl: api.stack().baseUrl });
    await expectSdkError(badKey.namespaces.list(), UnauthorizedError, 401);
  });

  it("deletes a namespace, after which it is gone", async () => {
    const { client } = await newClient();
    const namespace = await client.namespaces.create({ name: "Short-lived", slug: uniqueSlug() });
    await expect(client.namespaces.delete(namespace.id)).resolves.toBeUndefined();
    await expect
      .poll(
        async () =>
          client.namespaces.get(namespace.id).then(
            () => "present",
            (error: unknown) => (error instanceof NotFoundError ? "gone" : String(error)),
          ),
        { timeout: 15_000 },
      )
      .toBe("gone");
    expect(await client.namespaces.list()).toEqual([]);
  });
});

describe("uploading and ingesting files through the SDK", () => {
  it("uploads a Markdown file, ingests it to COMPLETED, and gets its chunks and bytes back", async () => {
    const { ns, namespaceId } = await newNamespaceClient();
    const text = markdown(40);
    const file = new File([text], "handbook.md", { type: "text/markdown" });

    const { key } = await ns.uploads.upload({ file, contentType: "text/markdown" });
    expect(key.startsWith(`namespaces/${namespaceId}/uploads/`)).toBe(true);
    expect(key.endsWith("/handbook.md")).toBe(true);

    const created = await ns.ingestion.create({ name: "handbook", payload: { type: "MANAGED_FILE", key } });
    expect(created).toMatchObject({ name: "handbook", namespaceId, status: "QUEUED", payload: { type: "MANAGED_FILE", key } });
    expect(created.id).toMatch(/^job_/);

    const job = await waitForJob(ns, created.id);
    expect(job.status).toBe("COMPLETED");
    expect(job.completedAt).toEqual(expect.any(String));

    const completed = await ns.ingestion.all({ statuses: ["COMPLETED"], perPage: 10 });
    expect(completed.jobs.map((listed) => listed.id)).toEqual([job.id]);
    expect(completed.pagination.nextCursor).toBeNull();
    const queued = await ns.ingestion.all({ statuses: ["QUEUED", "PROCESSING"] });
    expect(queued.jobs).toEqual([]);

    const { documents, pagination } = await ns.documents.all({ ingestJobId: job.id });
    expect(pagination.nextCursor).toBeNull();
    expect(documents).toHaveLength(1);
    const document = documents[0]!;
    expect(document).toMatchObject({
      ingestJobId: job.id,
      name: "handbook.md",
      status: "COMPLETED",
      source: { type: "MANAGED_FILE", key },
      properties: { fileSize: Buffer.byteLength(text), mimeType: "text/markdown" },
      totalCharacters: text.length,
    });
    expect(document.id).toMatch(/^doc_/);
    expect(await ns.documents.get(document.id)).toEqual(document);

    const chunksUrl = await ns.documents.getChunksDownloadUrl(document.id);
    const chunksResponse = await fetch(chunksUrl.url);
    expect(chunksResponse.status).toBe(200);
    const chunksFile = (await chunksResponse.json()) as { chunks: { text: string }[] };
    expect(chunksFile.chunks.length).toBe(document.totalChunks);
    expect(chunksFile.chunks.map((chunk) => chunk.text).join("")).toBe(text);

    const fileUrl = await ns.documents.getFileDownloadUrl(document.id);
    const download = await fetch(fileUrl.url);
    expect(download.status).toBe(200);
    expect(Buffer.from(await download.arrayBuffer()).equals(Buffer.from(text))).toBe(true);
  });

  it("uses the given contentType for a File that has no type of its own", async () => {
    const { ns } = await newNamespaceClient();
    const text = "# Untyped\n\nA file whose type comes from the upload call.";
    const { key } = await ns.uploads.upload({ file: new File([text], "untyped.md"), contentType: "text/markdown" });
    const job = await waitForJob(ns, (await ns.ingestion.create({ payload: { type: "MANAGED_FILE", key } })).id);
    expect(job.status).toBe("COMPLETED");
    const [document] = (await ns.documents.all({ ingestJobId: job.id })).documents;
    expect(document?.properties).toEqual({ fileSize: Buffer.byteLength(text), mimeType: "text/markdown" });
  });

  it("uploads two files with uploadBatch and ingests both in one BATCH job", async () => {
    const { ns, namespaceId } = await newNamespaceClient();
    const notes = "# Notes\n\nFirst file of the batch.";
    const people = "name,role\nAda,engineer\nGrace,admiral\n";
    const keys = await ns.uploads.uploadBatch([
      { file: new File([notes], "notes.md", { type: "text/markdown" }), contentType: "text/markdown" },
      { file: new File([people], "people.csv", { type: "text/csv" }), contentType: "text/csv" },
    ]);
    expect(keys).toHaveLength(2);
    expect(keys[0]!.key).toMatch(new RegExp(`^namespaces/${namespaceId}/uploads/.+/notes\\.md$`));
    expect(keys[1]!.key).toMatch(new RegExp(`^namespaces/${namespaceId}/uploads/.+/people\\.csv$`));

    const created = await ns.ingestion.create({
      payload: { type: "BATCH", items: keys.map(({ key }) => ({ type: "MANAGED_FILE" as const, key })) },
    });
    const job = await waitForJob(ns, created.id);
    expect(job.status).toBe("COMPLETED");

    const { documents } = await ns.documents.all({ ingestJobId: job.id, order: "asc" });
    expect(documents.map((document) => document.name).sort()).toEqual(["notes.md", "people.csv"]);
    for (const [name, content] of [
      ["notes.md", notes],
      ["people.csv", people],
    ] as const) {
      const document = documents.find((candidate) => candidate.name === name)!;
      const { url } = await ns.documents.getFileDownloadUrl(document.id);
      expect(await (await fetch(url)).text()).toBe(content);
    }
  });

  it("rejects an upload request the server refuses with UnprocessableEntityError, before any PUT", async () => {
    const { ns } = await newNamespaceClient();
    const error = await expectSdkError(
      ns.uploads.upload({ file: new File([new Uint8Array([1, 2, 3])], "clip.mp4", { type: "video/mp4" }), contentType: "video/mp4" }),
      UnprocessableEntityError,
      422,
    );
    expect(error.message).toMatch(/^contentType:/);
  });

  it("rejects chunk and file URLs of an unknown document with NotFoundError", async () => {
    const { ns } = await newNamespaceClient();
    await expectSdkError(ns.documents.get("doc_0000000000000000000000"), NotFoundError, 404);
    await expectSdkError(ns.documents.getChunksDownloadUrl("doc_0000000000000000000000"), NotFoundError, 404);
    await expectSdkError(ns.documents.getFileDownloadUrl("doc_0000000000000000000000"), NotFoundError, 404);
    await expectSdkError(ns.ingestion.get("job_0000000000000000000000"), NotFoundError, 404);
  });
});

describe("tenants through the SDK's tenantId option", () => {
  it("stores the tenant on a TEXT job and lists it for that tenant only", async () => {
    const { ns } = await newNamespaceClient();
    const text = "Tenant-scoped text for acme.";
    const created = await ns.ingestion.create({ payload: { type: "TEXT", text } }, { tenantId: "acme" });
    expect(created).toMatchObject({ tenantId: "acme", payload: { type: "TEXT", text } });
    const untenanted = await ns.ingestion.create({ payload: { type: "TEXT", text: "No tenant here." } });
    expect(untenanted.tenantId).toBeNull();

    const job = await waitForJob(ns, created.id, { tenantId: "acme" });
    expect(job.status).toBe("COMPLETED");

    const forAcme = await ns.ingestion.all({}, { tenantId: "acme" });
    expect(forAcme.jobs.map((listed) => listed.id)).toEqual([created.id]);
    const forOther = await ns.ingestion.all({}, { tenantId: "globex" });
    expect(forOther.jobs).toEqual([]);

    const documents = await ns.documents.all({ ingestJobId: created.id }, { tenantId: "acme" });
    expect(documents.documents).toHaveLength(1);
    expect(documents.documents[0]).toMatchObject({ tenantId: "acme", source: { type: "TEXT", text } });
    expect((await ns.documents.all({ ingestJobId: created.id }, { tenantId: "globex" })).documents).toEqual([]);
  });

  it("rejects a tenantId that is not 1 to 64 alphanumerics with BadRequestError", async () => {
    const { ns } = await newNamespaceClient();
    await expectSdkError(ns.ingestion.all({}, { tenantId: "not-alnum" }), BadRequestError, 400);
    await expectSdkError(ns.ingestion.create({ payload: { type: "TEXT", text: "x" } }, { tenantId: "a".repeat(65) }), BadRequestError, 400);
    expect((await ns.ingestion.all()).jobs).toEqual([]);
  });
});

describe("hosting through the SDK", () => {
  it("enables, reads, updates and deletes hosting, after which get rejects with NotFoundError", async () => {
    const { ns, namespaceId } = await newNamespaceClient();
    await expectSdkError(ns.hosting.get(), NotFoundError, 404);

    const enabled = await ns.hosting.enable();
    expect(enabled).toMatchObject({ namespaceId, title: "SDK docs", searchEnabled: true });
    await expectSdkError(ns.hosting.enable(), ConflictError, 409);

    expect(await ns.hosting.get()).toEqual(enabled);

    const updated = await ns.hosting.update({ title: "Ask the SDK docs", topK: 12 });
    expect(updated).toMatchObject({ namespaceId, title: "Ask the SDK docs", topK: 12 });
    expect(await ns.hosting.get()).toEqual(updated);

    await expectSdkError(ns.hosting.update({ topK: 0 }), UnprocessableEntityError, 422);

    await expect(ns.hosting.delete()).resolves.toBeUndefined();
    await expectSdkError(ns.hosting.get(), NotFoundError, 404);
    await expectSdkError(ns.hosting.delete(), NotFoundError, 404);
  });
});

describe("cursor pagination through the SDK", () => {
  it("pages 12 jobs with perPage 5 by following pagination.nextCursor, seeing every job exactly once", async () => {
    const { ns } = await newNamespaceClient();
    const createdIds: string[] = [];
    for (let index = 0; index < 12; index += 1) {
      createdIds.push((await ns.ingestion.create({ payload: { type: "TEXT", text: `Paged text number ${index}.` } })).id);
    }

    const seen: IngestJobSchema[] = [];
    const pages: { ids: string[]; pagination: FullPagination }[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 10; page += 1) {
      const { jobs, pagination } = await ns.ingestion.all({ perPage: 5, ...(cursor ? { cursor } : {}) });
      // The SDK types only nextCursor but hands the server's whole pagination object through.
      pages.push({ ids: jobs.map((job) => job.id), pagination: pagination as FullPagination });
      seen.push(...jobs);
      if (!pagination.nextCursor) break;
      cursor = pagination.nextCursor;
    }

    expect(pages.map((page) => page.ids.length)).toEqual([5, 5, 2]);
    expect(pages.map((page) => page.pagination.hasMore)).toEqual([true, true, false]);
    expect(pages.slice(1).map((page) => typeof page.pagination.prevCursor)).toEqual(["string", "string"]);
    const seenIds = seen.map((job) => job.id);
    expect(new Set(seenIds).size).toBe(seenIds.length);
    expect([...seenIds].sort()).toEqual([...createdIds].sort());
    // Default order is newest first.
    const createdAts = seen.map((job) => job.createdAt);
    expect(createdAts).toEqual([...createdAts].sort().reverse());

    // Ascending order pages the same set the other way round.
    const ascending: string[] = [];
    let next: string | null | undefined;
    do {
      const { jobs, pagination } = await ns.ingestion.all({ perPage: 5, order: "asc", ...(next ? { cursor: next } : {}) });
      ascending.push(...jobs.map((job) => job.id));
      next = pagination.nextCursor;
    } while (next && ascending.length <= createdIds.length);
    expect(ascending).toEqual([...seenIds].reverse());

    // Going backward from the last page's prevCursor gives the page before it, in the same order.
    const backward = await ns.ingestion.all({ perPage: 5, cursor: pages[2]!.pagination.prevCursor!, cursorDirection: "backward" });
    expect(backward.jobs.map((job) => job.id)).toEqual(pages[1]!.ids);
  });

  it("rejects perPage outside 1..100 with UnprocessableEntityError", async () => {
    const { ns } = await newNamespaceClient();
    await expectSdkError(ns.ingestion.all({ perPage: 101 }), UnprocessableEntityError, 422);
    await expectSdkError(ns.documents.all({ perPage: 0 }), UnprocessableEntityError, 422);
  });
});

describe("search (not yet served by this service)", () => {
  // POST /v1/namespace/{id}/search has no route yet (the gateway answers 404 "No such route");
  it("searches a namespace and finds the ingested text, per tenant", async () => {
    const { ns } = await newNamespaceClient();
    const text = "The lighthouse keeper logs every passing ship in a leather-bound ledger.";
    const job = await waitForJob(ns, (await ns.ingestion.create({ payload: { type: "TEXT", text } })).id);
    expect(job.status).toBe("COMPLETED");
    const results = await ns.search("lighthouse keeper ledger", { topK: 5 });
    expect(results.length).toBeGreaterThan(0);
    expect(results[0]!.text).toContain("lighthouse keeper");
    expect(typeof results[0]!.score).toBe("number");
    const keyword = await ns.search("ledger", { topK: 5, mode: "keyword" });
    expect(keyword[0]!.text).toContain("ledger");
    const otherTenant = await ns.search("lighthouse keeper ledger", { topK: 5 }, { tenantId: "acme" });
    expect(otherTenant).toEqual([]);
  });
});

describe("re-ingesting and deleting through the SDK", () => {
  it("re-ingests a job to COMPLETED again, returning only its id", async () => {
    const { ns } = await newNamespaceClient();
    const created = await ns.ingestion.create({ payload: { type: "TEXT", text: "Text to re-ingest." } });
    const job = await waitForJob(ns, created.id);
    expect(job.status).toBe("COMPLETED");

    const reIngested = await ns.ingestion.reIngest(job.id);
    expect(reIngested).toEqual({ id: job.id });
    const again = await waitForJob(ns, job.id);
    expect(again.status).toBe("COMPLETED");
    // A new run: queued again after the first run completed, and completed after that.
    expect(again.queuedAt! > job.completedAt!).toBe(true);
    expect(again.completedAt! >= again.queuedAt!).toBe(true);
    expect((await ns.documents.all({ ingestJobId: job.id })).documents).toHaveLength(1);
  });

  it("re-ingests a tenant's job although the SDK sends its tenantId option as the body, not as x-tenant-id", async () => {
    const { ns } = await newNamespaceClient();
    const created = await ns.ingestion.create({ payload: { type: "TEXT", text: "Tenant text to re-ingest." } }, { tenantId: "acme" });
    expect((await waitForJob(ns, created.id, { tenantId: "acme" })).status).toBe("COMPLETED");
    expect(await ns.ingestion.reIngest(created.id, { tenantId: "acme" })).toEqual({ id: created.id });
    expect((await waitForJob(ns, created.id, { tenantId: "acme" })).status).toBe("COMPLETED");
  });

  it("deletes a document and a job (the SDK resolves to undefined), after which the job is gone", async () => {
    const { ns } = await newNamespaceClient();
    const job = await waitForJob(ns, (await ns.ingestion.create({ payload: { type: "TEXT", text: "Text to delete." } })).id);
    expect(job.status).toBe("COMPLETED");

    const [document] = (await ns.documents.all({ ingestJobId: job.id })).documents;
    await expect(ns.documents.delete(document!.id)).resolves.toBeUndefined();
    await expect(ns.ingestion.delete(job.id)).resolves.toBeUndefined();
    await expect
      .poll(
        async () =>
          ns.ingestion.get(job.id).then(
            (found) => found.status,
            (error: unknown) => (error instanceof NotFoundError ? "gone" : String(error)),
          ),
        { timeout: 30_000 },
      )
      .toBe("gone");
    await expectSdkError(ns.documents.get(document!.id), NotFoundError, 404);
    await expectSdkError(ns.ingestion.reIngest(job.id), NotFoundError, 404);
  });
});
