import { afterEach, describe, expect, it } from "vitest";
import { getIngestJob } from "../../functions/shared/db/ingest-jobs.ts";
import { keys } from "../../functions/shared/db/dynamo/keys.ts";
import { listDeadLetters } from "../../scripts/dlq.ts";
import { useLocalStack } from "../support/local-stack.ts";
import { queuesDrained } from "../support/queues.ts";
import { documentsOfJob, ingestText, newNamespace, type TestNamespace, waitForJob } from "../support/ingestion.ts";
import { cancellation, failFirst, type InjectedError, injectDynamoErrors, removeInjections, transactionConflict, transactionKeys } from "../support/dynamo-faults.ts";

// DynamoDB Local never cancels a transaction for a conflict; these tests make DynamoDB's client
// receive the cancellations AWS sends (TransactionConflict when another transaction holds an item).
const api = useLocalStack();

afterEach(() => removeInjections());

const NAMESPACE = keys.namespace("").PK;
const DOCUMENT = keys.document("").PK;
const JOB = keys.ingestJob("").PK;

type Input = Record<string, any>;

function isNamespaceCreation(operation: string, input: Input): boolean {
  return operation === "TransactWriteItems" && transactionKeys(input).some(({ action, pk }) => action === "Put" && pk.startsWith(NAMESPACE));
}

/** insertDocumentIfAbsent: the document's Put and a ConditionCheck on its job. */
function isDocumentInsert(operation: string, input: Input): boolean {
  const actions = operation === "TransactWriteItems" ? transactionKeys(input) : [];
  return actions.some(({ action, pk }) => action === "Put" && pk.startsWith(DOCUMENT)) && actions.some(({ action, pk }) => action === "ConditionCheck" && pk.startsWith(JOB));
}

/** settleDocument: the document's status change and its job's counter, together. */
function isSettlement(operation: string, input: Input): boolean {
  const actions = operation === "TransactWriteItems" ? transactionKeys(input) : [];
  return actions.some(({ action, pk }) => action === "Update" && pk.startsWith(DOCUMENT)) && actions.some(({ action, pk }) => action === "Update" && pk.startsWith(JOB));
}

/** Answers the first `times` calls that `matches` picks with `error`, and counts every call it picks. */
function failFirstCounting(times: number, error: InjectedError, matches: (operation: string, input: Input) => boolean) {
  let attempts = 0;
  injectDynamoErrors((operation, input) => {
    if (!matches(operation, input)) return null;
    attempts += 1;
    return attempts <= times ? error : null;
  });
  return { attempts: () => attempts };
}

async function createNamespace(key: string) {
  return api.request("POST", "/v1/namespace", { key, body: { name: "Conflicts", slug: `c-${Math.random().toString(36).slice(2, 10)}` } });
}

async function deadLetters(): Promise<unknown[]> {
  const stack = api.stack();
  return (await listDeadLetters(stack.clients.sqs, stack.resources.queues.ingest.dlqUrl)).map((letter) => JSON.parse(letter.body));
}

function batchOfTexts(count: number) {
  return Array.from({ length: count }, (_, index) => ({ type: "TEXT", text: `Document ${index} of the batch, about topic ${index}.`, fileName: `doc-${index}.txt` }));
}

async function ingestBatch(ns: TestNamespace, count: number) {
  const created = await ns.call("POST", "/ingest-jobs", { body: { payload: { type: "BATCH", items: batchOfTexts(count) } } });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.data.id as string;
}

describe("a transaction DynamoDB cancels", () => {
  it("is tried again when only conflicts cancelled it, and applied once", async () => {
    const { key } = await api.newOrganization();
    const injection = failFirst(2, cancellation("TransactionConflict", "None"), isNamespaceCreation);
    const created = await createNamespace(key);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(injection.injected()).toBe(2);
    const listed = await api.request("GET", "/v1/namespace", { key });
    expect(listed.body.data.map((namespace: { id: string }) => namespace.id)).toEqual([created.body.data.id]);
  });

  it("also when throttling cancelled it", async () => {
    const { key } = await api.newOrganization();
    const injection = failFirst(1, cancellation("ThrottlingError", "ProvisionedThroughputExceeded"), isNamespaceCreation);
    expect((await createNamespace(key)).status).toBe(201);
    expect(injection.injected()).toBe(1);
  });

  it("counts as a failed condition, tried once, when a reason is ConditionalCheckFailed", async () => {
    const { key } = await api.newOrganization();
    const creation = failFirstCounting(1, cancellation("TransactionConflict", "ConditionalCheckFailed"), isNamespaceCreation);
    const created = await createNamespace(key);
    expect(created.status).toBe(409);
    expect(created.body.error.message).toMatch(/slug/);
    expect(creation.attempts()).toBe(1);
  });

  it.each(["ValidationError", "ItemCollectionSizeLimitExceeded"])("is an error, never a lost race, when cancelled for %s", async (reason) => {
    const { key } = await api.newOrganization();
    const injection = failFirst(1, cancellation("None", reason), isNamespaceCreation);
    const created = await createNamespace(key);
    expect(created.status).toBe(500);
    expect(created.body.error.code).toBe("internal_server_error");
    expect(injection.injected()).toBe(1);
    expect((await api.request("GET", "/v1/namespace", { key })).body.data).toEqual([]);
  });

  it("gives up after a bounded number of tries when conflicts persist", async () => {
    const { key } = await api.newOrganization();
    const injection = injectDynamoErrors((operation, input) => (isNamespaceCreation(operation, input) ? cancellation("TransactionConflict", "None") : null));
    const created = await createNamespace(key);
    expect(created.status).toBe(500);
    expect(injection.injected()).toBe(8);
  });
});

describe("a single-item write that meets an ongoing transaction", () => {
  it("is tried again (TransactionConflictException), so a status change goes through", async () => {
    const ns = await newNamespace(api);
    const job = await ingestText(ns, "A document whose job is deleted while a transaction holds it.");
    await waitForJob(ns, job.id);
    const injection = failFirst(2, transactionConflict, (operation, input) => operation === "UpdateItem" && String(input.Key?.PK?.S).startsWith(JOB));
    const deleted = await ns.call("DELETE", `/ingest-jobs/${job.id}`);
    expect(deleted.status, JSON.stringify(deleted.body)).toBe(200);
    expect(deleted.body.data.status).toBe("QUEUED_FOR_DELETE");
    expect(injection.injected()).toBe(2);
  });
});

describe("ingesting while transactions conflict", () => {
  it("creates every document of a BATCH and completes it when document inserts meet conflicts", async () => {
    const ns = await newNamespace(api);
    // Every other insert attempt is cancelled, as when many writers take turns on the job item.
    let inserts = 0;
    const injection = injectDynamoErrors((operation, input) => {
      if (!isDocumentInsert(operation, input)) return null;
      inserts += 1;
      return inserts % 2 === 1 && inserts < 40 ? cancellation("None", "TransactionConflict") : null;
    });
    const jobId = await ingestBatch(ns, 16);
    const job = await waitForJob(ns, jobId);
    expect(injection.injected()).toBe(16);
    expect(job.status).toBe("COMPLETED");
    const documents = await documentsOfJob(ns, jobId);
    expect(documents).toHaveLength(16);
    expect(documents.every((document) => document.status === "COMPLETED")).toBe(true);
    expect(await getIngestJob(jobId)).toMatchObject({ documentsTotal: 16, documentsCompleted: 16, documentsFailed: 0 });
    expect(await deadLetters()).toEqual([]);
  });

  it("settles a document whose settling transaction meets conflicts", async () => {
    const ns = await newNamespace(api);
    const injection = failFirst(3, cancellation("None", "TransactionConflict"), isSettlement);
    const created = await ingestText(ns, "A document settled while another transaction holds its job.");
    const job = await waitForJob(ns, created.id);
    expect(injection.injected()).toBe(3);
    expect(job.status).toBe("COMPLETED");
    const [document] = await documentsOfJob(ns, created.id);
    expect(document.status).toBe("COMPLETED");
    expect(await getIngestJob(created.id)).toMatchObject({ documentsCompleted: 1, documentsFailed: 0 });
  });

  it.each([
    ["an insert", isDocumentInsert],
    ["a settlement", isSettlement],
  ] as const)("retries the work, never drops it, when %s is cancelled for a ValidationError", async (_, matches) => {
    const ns = await newNamespace(api);
    const injection = failFirst(1, cancellation("None", "ValidationError"), matches);
    const jobId = await ingestBatch(ns, 3);
    const job = await waitForJob(ns, jobId);
    expect(injection.injected()).toBe(1);
    expect(job.status).toBe("COMPLETED");
    expect(await documentsOfJob(ns, jobId)).toHaveLength(3);
  });

  it("takes a settlement refused by its condition for another delivery's: not retried, not counted", async () => {
    const ns = await newNamespace(api);
    const settlement = failFirstCounting(1, cancellation("ConditionalCheckFailed", "None"), isSettlement);
    const created = await ingestText(ns, "A document another delivery is taken to have settled.");
    await expect.poll(() => settlement.attempts(), { timeout: 30_000 }).toBe(1);
    // The delivery that lost stops; the winner it assumes counts the document (the reconciler
    // takes over if that winner died).
    await queuesDrained(api, ["ingest"]);
    expect(settlement.attempts()).toBe(1);
    expect(await getIngestJob(created.id)).toMatchObject({ status: "PROCESSING", documentsCompleted: 0, documentsFailed: 0 });
    const [document] = await documentsOfJob(ns, created.id);
    expect(document.status).toBe("PROCESSING");
  });
});
