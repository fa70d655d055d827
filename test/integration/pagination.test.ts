import { beforeAll, describe, expect, it } from "vitest";
import { PutCommand } from "@aws-sdk/lib-dynamodb";
import { dynamo } from "../../functions/shared/db/dynamo/client.ts";
import { jobItem } from "../../functions/shared/db/ingest-jobs.ts";
import { insertJobWithPayload } from "../../functions/shared/workflows/ingestion/stored-payloads.ts";
import { listSortKey } from "../../functions/shared/db/dynamo/keys.ts";
import type { IngestJobRecord } from "../../functions/shared/domain/ingest-job.ts";
import type { Status } from "../../functions/shared/domain/statuses.ts";
import { config } from "../../functions/shared/platform/env.ts";
import { nowIso } from "../../functions/shared/platform/time.ts";
import { useLocalStack } from "../support/local-stack.ts";
import { newNamespace, type TestNamespace } from "../support/ingestion.ts";

// Records are written straight to the table (the list endpoints are under test, not the worker).
const api = useLocalStack({ workers: false });

const STATUS_CYCLE: Status[] = ["QUEUED", "COMPLETED", "FAILED", "PROCESSING", "COMPLETED"];
const TENANTS = [null, "acme", "globex"] as const;

let ns: TestNamespace;
const jobs: IngestJobRecord[] = [];

function sortKey(job: IngestJobRecord): string {
  return listSortKey(job.createdAt, job.id);
}

function expectedOrder(filter: (job: IngestJobRecord) => boolean, order: "asc" | "desc"): string[] {
  const selected = jobs.filter(filter).sort((a, b) => (sortKey(a) < sortKey(b) ? -1 : 1));
  return (order === "asc" ? selected : selected.reverse()).map((job) => job.id);
}

async function page(query: string, headers?: Record<string, string>) {
  const response = await ns.call("GET", `/ingest-jobs?${query}`, { headers });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body as { data: { id: string; status: string; tenantId: string | null }[]; pagination: { nextCursor: string | null; prevCursor: string | null; hasMore: boolean } };
}

/** Walks forward through every page, checking that pages are full until the last. */
async function walkForward(query: string, perPage: number, headers?: Record<string, string>) {
  const pages: string[][] = [];
  let cursor: string | null = null;
  let first = true;
  do {
    const body = await page(`${query}&perPage=${perPage}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`, headers);
    if (first) expect(body.pagination.prevCursor).toBeNull();
    else expect(body.pagination.prevCursor).not.toBeNull();
    first = false;
    pages.push(body.data.map((job) => job.id));
    if (body.pagination.hasMore) expect(body.data).toHaveLength(perPage);
    expect(body.pagination.hasMore).toBe(body.pagination.nextCursor !== null);
    cursor = body.pagination.nextCursor;
  } while (cursor);
  return pages;
}

beforeAll(async () => {
  ns = await newNamespace(api);
  for (let start = 0; start < 300; start += 25) {
    const batch = await Promise.all(
      Array.from({ length: 25 }, (_, offset) =>
        insertJobWithPayload({
          namespaceId: ns.namespaceId,
          tenantId: TENANTS[(start + offset) % 3]!,
          name: `job ${start + offset}`,
          externalId: null,
          payload: { type: "TEXT", text: `text ${start + offset}` },
          config: null,
          documentCount: 1,
          now: nowIso(),
        }),
      ),
    );
    jobs.push(...batch);
  }
  await Promise.all(
    jobs.map(async (job, index) => {
      const status = STATUS_CYCLE[index % STATUS_CYCLE.length]!;
      // A status no run could reach this way (QUEUED → COMPLETED): written as data, not as a lifecycle change.
      if (status !== "QUEUED") await dynamo().send(new PutCommand({ TableName: config.tableName(), Item: jobItem({ ...job, status }) }));
      job.status = status;
    }),
  );
}, 120_000);

describe("paging through ingest jobs (listIngestJobs)", () => {
  it("returns every job exactly once, newest first, in full pages", async () => {
    const pages = await walkForward("order=desc", 7);
    expect(pages.flat()).toEqual(expectedOrder(() => true, "desc"));
    expect(pages.slice(0, -1).every((ids) => ids.length === 7)).toBe(true);
  });

  it("defaults to 30 per page, newest first", async () => {
    const body = await page("");
    expect(body.data.map((job) => job.id)).toEqual(expectedOrder(() => true, "desc").slice(0, 30));
    expect(body.pagination.hasMore).toBe(true);
  });

  it("pages oldest first with order=asc", async () => {
    const pages = await walkForward("order=asc", 50);
    expect(pages.flat()).toEqual(expectedOrder(() => true, "asc"));
  });

  it("pages backward from any page, returning the records adjacent to the cursor", async () => {
    const forward = await walkForward("order=desc", 9);
    // Start from the last page and walk back with prevCursor.
    let body = await page(`order=desc&perPage=9&cursor=${encodeURIComponent((await lastPageCursor(9)) ?? "")}`);
    const backwardPages: string[][] = [body.data.map((job) => job.id)];
    let cursor = body.pagination.prevCursor;
    while (cursor) {
      body = await page(`order=desc&perPage=9&cursorDirection=backward&cursor=${encodeURIComponent(cursor)}`);
      backwardPages.unshift(body.data.map((job) => job.id));
      expect(body.pagination.nextCursor).not.toBeNull();
      cursor = body.pagination.hasMore ? body.pagination.prevCursor : null;
    }
    expect(backwardPages).toEqual(forward);
  });

  it("filters by several statuses and still fills every page", async () => {
    const wanted = (job: IngestJobRecord) => job.status === "QUEUED" || job.status === "FAILED";
    const pages = await walkForward("statuses=QUEUED,FAILED", 11);
    expect(pages.flat()).toEqual(expectedOrder(wanted, "desc"));
    expect(pages.slice(0, -1).every((ids) => ids.length === 11)).toBe(true);
  });

  it("combines the tenant header with a status filter", async () => {
    const wanted = (job: IngestJobRecord) => job.tenantId === "acme" && job.status === "COMPLETED";
    const pages = await walkForward("statuses=COMPLETED", 6, { "x-tenant-id": "acme" });
    expect(pages.flat()).toEqual(expectedOrder(wanted, "desc"));
  });

  it("refuses a cursor replayed against another filter, tenant or namespace", async () => {
    const body = await page("perPage=5&statuses=QUEUED");
    const cursor = encodeURIComponent(body.pagination.nextCursor!);
    expect((await ns.call("GET", `/ingest-jobs?perPage=5&statuses=FAILED&cursor=${cursor}`)).status).toBe(400);
    expect((await ns.call("GET", `/ingest-jobs?perPage=5&statuses=QUEUED&cursor=${cursor}`, { headers: { "x-tenant-id": "acme" } })).status).toBe(400);
    const other = await newNamespace(api);
    expect((await other.call("GET", `/ingest-jobs?perPage=5&statuses=QUEUED&cursor=${cursor}`)).status).toBe(400);
    const tampered = body.pagination.nextCursor!.replace(/^./, (c) => (c === "A" ? "B" : "A"));
    expect((await ns.call("GET", `/ingest-jobs?perPage=5&statuses=QUEUED&cursor=${encodeURIComponent(tampered)}`)).status).toBe(400);
  });

  it("returns an empty page with no cursors for a namespace without jobs", async () => {
    const empty = await newNamespace(api);
    const body = (await empty.call("GET", "/ingest-jobs")).body;
    expect(body).toEqual({ success: true, data: [], pagination: { nextCursor: null, prevCursor: null, hasMore: false } });
  });
});

/** The cursor that opens the last forward page (the next-cursor of the page before it). */
async function lastPageCursor(perPage: number): Promise<string | null> {
  let cursor: string | null = null;
  let previous: string | null = null;
  do {
    const body = await page(`order=desc&perPage=${perPage}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
    previous = cursor;
    cursor = body.pagination.nextCursor;
  } while (cursor);
  return previous;
}
