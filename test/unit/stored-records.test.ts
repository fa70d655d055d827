import { describe, expect, it } from "vitest";
import { SEARCH_FIELDS } from "../../functions/shared/db/documents.ts";
import { keys, organizationListKeys } from "../../functions/shared/db/dynamo/keys.ts";
import { hostingFromItem, hostingItem } from "../../functions/shared/db/hosting.ts";
import { namespaceFromItem } from "../../functions/shared/db/namespaces.ts";
import { apiKeyFromItem, organizationFromItem } from "../../functions/shared/db/organizations.ts";
import { jobItem } from "../../functions/shared/db/ingest-jobs.ts";
import { MalformedItemError } from "../../functions/shared/db/dynamo/items.ts";
import { documentFieldsFromItem, documentFromItem, jobFromItem } from "../../functions/shared/db/records.ts";
import { newHosting } from "../../functions/shared/domain/hosting.ts";
import { hostingToWire } from "../../functions/shared/domain/wire/hosting.ts";
import type { NamespaceRecord } from "../../functions/shared/domain/namespace.ts";
import { errorReply } from "../../functions/shared/http/error-mapping.ts";
import { aDocument, aJob } from "../support/records.ts";

const job = aJob({ name: "a job", config: { chunkSize: 512, metadata: { team: "a" } } });

const documentItem = {
  PK: "DOC#doc_1",
  SK: "DOC",
  GSI1PK: "x",
  entityType: "Document",
  ...aDocument({
    status: "PROCESSING",
    source: { type: "TEXT" },
    sourceObjectKey: "namespaces/ns_1/documents/doc_1/source.txt",
    properties: { fileSize: 10, mimeType: "text/plain" },
    processingAt: "2026-01-01T00:00:01.000Z",
    checkpoint: { runId: "run1", stagingKey: "k", embedded: 0, totalChunks: 3, totalCharacters: 30, totalPages: 1, tokens: 0 },
  }),
  sweeps: { key: "run1:ingest", count: 2 },
};

describe("stored jobs and documents read back through their schemas", () => {
  it("returns the record as written, without its key and index attributes, and keeps attributes the type does not name", () => {
    expect(jobFromItem(jobItem(job))).toEqual(job);
    const document = documentFromItem(documentItem);
    expect(document).not.toHaveProperty("PK");
    expect(document).not.toHaveProperty("entityType");
    expect(document.checkpoint?.totalChunks).toBe(3);
    expect((document as { sweeps?: unknown }).sweeps).toEqual({ key: "run1:ingest", count: 2 });
  });

  it("fails loudly, naming the record and the field, on an item of another shape", () => {
    expect(() => jobFromItem({ ...jobItem(job), status: "DONE" })).toThrow(MalformedItemError);
    expect(() => jobFromItem({ ...jobItem(job), status: "DONE" })).toThrow(/ingest job job_1 is malformed: status/);
    const { runId: _runId, ...withoutRun } = documentItem;
    expect(() => documentFromItem(withoutRun)).toThrow(/document doc_1 is malformed: runId/);
    expect(() => documentFromItem({ ...documentItem, checkpoint: { ...documentItem.checkpoint, embedded: "0" } })).toThrow(/checkpoint\.embedded/);
  });

  it("checks only the fields a projection read", () => {
    const projected = Object.fromEntries(SEARCH_FIELDS.map((field) => [field, documentItem[field as keyof typeof documentItem]]));
    expect(documentFieldsFromItem(SEARCH_FIELDS, projected)).toEqual(projected);
    expect(() => documentFieldsFromItem(SEARCH_FIELDS, { ...projected, generation: { runId: 1 } })).toThrow(MalformedItemError);
    const fileFields = ["id", "status", "source.type"];
    expect(documentFieldsFromItem(fileFields, { id: "doc_1", status: "COMPLETED", source: { type: "MANAGED_FILE" } })).toEqual({
      id: "doc_1",
      status: "COMPLETED",
      source: { type: "MANAGED_FILE" },
    });
    expect(() => documentFieldsFromItem(fileFields, { id: "doc_1", status: "DONE", source: { type: "MANAGED_FILE" } })).toThrow(/status/);
  });
});

const namespace: NamespaceRecord = {
  id: "ns_1",
  name: "Docs",
  slug: "docs",
  organizationId: "org_1",
  status: "ACTIVE",
  createdAt: "2026-01-01T00:00:00.000Z",
  updatedAt: "2026-01-01T00:00:00.000Z",
  embeddingConfig: { provider: "OPENAI", model: "text-embedding-3-small", apiKey: "sk-test" },
  vectorStoreConfig: { provider: "MANAGED_VECTORSTORE" },
};
// As createNamespace writes it: the record under its keys and the organization's list keys.
const namespaceItem = { ...keys.namespace("ns_1"), ...organizationListKeys("NAMESPACES", "org_1", namespace.createdAt, "ns_1"), entityType: "Namespace", ...namespace };

describe("stored namespaces, hostings, organizations and API keys read back through their schemas", () => {
  it("return the record as written, without key and index attributes", () => {
    expect(namespaceFromItem(namespaceItem)).toEqual(namespace);
    const withReranker = { ...namespace, rerankingConfig: { provider: "COHERE" as const, model: "rerank-v3.5", apiKey: "k" } };
    expect(namespaceFromItem({ ...namespaceItem, ...withReranker })).toEqual(withReranker);
    const hosting = newHosting(namespace, "abc", namespace.createdAt);
    expect(hostingFromItem(hostingItem(hosting))).toEqual(hosting);
    const organization = { id: "org_1", name: "acme", createdAt: namespace.createdAt, usageKey: "u" };
    expect(organizationFromItem({ ...keys.organization("org_1"), entityType: "Organization", ...organization })).toEqual(organization);
    const apiKey = { keyId: "key_1", keyHash: "h", keyPreview: "kis_…abcd", label: "ci", organizationId: "org_1", usageKey: "u", createdAt: namespace.createdAt };
    expect(apiKeyFromItem({ ...keys.apiKey("h"), ...organizationListKeys("APIKEYS", "org_1", apiKey.createdAt, "key_1"), entityType: "ApiKey", ...apiKey })).toEqual(apiKey);
  });

  it("read records written by earlier versions: the legacy vector store, a hosting without chatMode, mcpEnabled or a provider", () => {
    expect(namespaceFromItem({ ...namespaceItem, vectorStoreConfig: { provider: "MANAGED_VECTORSTORE_OLD" } }).vectorStoreConfig.provider).toBe("MANAGED_VECTORSTORE_OLD");
    const { chatMode: _chatMode, mcpEnabled: _mcpEnabled, ...current } = newHosting(namespace, "abc", namespace.createdAt);
    const firstVersion = hostingFromItem(hostingItem({ ...current, llmConfig: { model: "openai:gpt-4.1" } }));
    expect(firstVersion.llmConfig).toEqual({ model: "openai:gpt-4.1" });
    expect(hostingToWire(firstVersion)).toMatchObject({ chatMode: "single-shot", mcpEnabled: false });
  });

  it("fail loudly, naming the record and the field, and answer that as a server error, not the caller's", () => {
    expect(() => namespaceFromItem({ ...namespaceItem, status: "GONE" })).toThrow(/namespace ns_1 is malformed: status/);
    expect(() => namespaceFromItem({ ...namespaceItem, embeddingConfig: { provider: "ELSEWHERE", model: "m" } })).toThrow(/embeddingConfig\.provider/);
    const hosting = hostingItem(newHosting(namespace, "abc", namespace.createdAt));
    expect(() => hostingFromItem({ ...hosting, topK: "50" })).toThrow(/hosting ns_1 is malformed: topK/);
    expect(() => organizationFromItem({ id: "org_1", name: "acme", createdAt: namespace.createdAt })).toThrow(/organization org_1 is malformed: usageKey/);
    expect(() => apiKeyFromItem({ keyId: "key_1", organizationId: "org_1" })).toThrow(MalformedItemError);
    let thrown: unknown;
    try {
      namespaceFromItem({ ...namespaceItem, status: "GONE" });
    } catch (error) {
      thrown = error;
    }
    expect(errorReply(thrown)).toMatchObject({ status: 500, code: "internal_server_error" });
  });
});
