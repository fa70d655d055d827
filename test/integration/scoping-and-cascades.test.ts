import { DeleteCommand, DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { afterEach, describe, expect, it } from "vitest";
import { keys, listGroup } from "../../functions/shared/db/dynamo/keys.ts";
import { useLocalStack } from "../support/local-stack.ts";
import { documentsOfJob, newNamespace, type TestNamespace, waitForJob } from "../support/ingestion.ts";
import { tableItemsMentioning } from "../support/inventory.ts";
import { lagIndexes, removeInjections } from "../support/dynamo-faults.ts";

const api = useLocalStack();

afterEach(() => removeInjections());

function texts(count: number) {
  return Array.from({ length: count }, (_, index) => ({ type: "TEXT", text: `Entry ${index} about subject ${index}.` }));
}

async function ingestBatch(ns: TestNamespace, items: unknown[]) {
  const created = await ns.call("POST", "/ingest-jobs", { body: { payload: { type: "BATCH", items } } });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return waitForJob(ns, created.body.data.id);
}

async function deleteNamespaceAndWait(ns: TestNamespace) {
  expect((await ns.call("DELETE", "")).status).toBe(200);
  await expect.poll(async () => (await ns.call("GET", "")).status, { timeout: 60_000, interval: 200 }).toBe(404);
}

describe("a BATCH with one bad FILE URL", () => {
  it("fails only that item, with its reason, and completes the others", async () => {
    const ns = await newNamespace(api);
    const job = await ingestBatch(ns, [{ type: "FILE", fileUrl: "http://x.invalid/%ff" }, { type: "TEXT", text: "A valid item beside a bad one." }]);
    const documents = await documentsOfJob(ns, job.id);
    expect(documents).toHaveLength(2);
    const statuses = documents.map((document) => document.status).sort();
    expect(statuses).toEqual(["COMPLETED", "FAILED"]);
    const failed = documents.find((document) => document.status === "FAILED");
    expect(failed.error).toBeTruthy();
    expect(failed.name).toBe("%ff");
  });
});

describe("the documents list filtered by ingestJobId", () => {
  it("tells nothing of another organization's job: empty page, no cursor, hasMore false", async () => {
    const owner = await newNamespace(api);
    const job = await ingestBatch(owner, texts(3));
    const own = await owner.call("GET", `/documents?ingestJobId=${job.id}&perPage=1`);
    expect(own.body.pagination.hasMore).toBe(true);

    const stranger = await newNamespace(api);
    const foreign = await stranger.call("GET", `/documents?ingestJobId=${job.id}&perPage=1`);
    expect(foreign.status).toBe(200);
    expect(foreign.body.data).toEqual([]);
    expect(foreign.body.pagination).toEqual({ nextCursor: null, prevCursor: null, hasMore: false });
  });

  it("tells nothing of another tenant's job in the same namespace", async () => {
    const ns = await newNamespace(api);
    const created = await ns.call("POST", "/ingest-jobs", { body: { payload: { type: "BATCH", items: texts(3) } }, headers: { "x-tenant-id": "acme" } });
    await waitForJob(ns, created.body.data.id, undefined, { "x-tenant-id": "acme" });
    const other = await ns.call("GET", `/documents?ingestJobId=${created.body.data.id}&perPage=1`, { headers: { "x-tenant-id": "globex" } });
    expect(other.body.data).toEqual([]);
    expect(other.body.pagination.hasMore).toBe(false);
  });
});

describe("the namespace cascade", () => {
  it("purges every document whose job record went first, not only the first page", async () => {
    const ns = await newNamespace(api);
    const job = await ingestBatch(ns, texts(30));
    expect(job.status).toBe("COMPLETED");
    // An interrupted cascade removed the job record and stopped before its documents.
    const stack = api.stack();
    await DynamoDBDocumentClient.from(stack.clients.dynamo).send(new DeleteCommand({ TableName: stack.resources.tableName, Key: keys.ingestJob(job.id) }));

    await deleteNamespaceAndWait(ns);
    expect(await tableItemsMentioning(stack, ns.namespaceId)).toEqual([]);
  });

  it("finishes when the job index still lists jobs it already deleted", async () => {
    const ns = await newNamespace(api);
    await ingestBatch(ns, texts(2));
    await ingestBatch(ns, texts(2));
    const jobsGroup = listGroup("collection", { collection: "JOBS", namespaceId: ns.namespaceId, tenantId: null, status: null });
    const lagging = lagIndexes(api.stack(), { lagging: (_, partition) => partition === jobsGroup, staleForMs: 10 * 60_000 });

    await deleteNamespaceAndWait(ns);
    expect(lagging.seen()).toBeGreaterThan(0);
    expect(await tableItemsMentioning(api.stack(), ns.namespaceId)).toEqual([]);
  });
});
