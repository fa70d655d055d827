import { describe, expect, it } from "vitest";
import type { DocumentRecord } from "../../functions/shared/domain/document.ts";
import { ownerOf } from "../../functions/shared/workflows/maintenance/orphan-objects.ts";
import { vectorOrphanReason } from "../../functions/shared/workflows/maintenance/orphan-vectors.ts";

describe("ownerOf", () => {
  it.each([
    ["namespaces/ns_a/uploads/r4nd/file.md", { area: "upload", namespaceId: "ns_a" }],
    ["namespaces/ns_a/documents/doc_1/chunks.json", { area: "document", namespaceId: "ns_a", documentId: "doc_1", runId: null }],
    ["namespaces/ns_a/documents/doc_1/source.txt", { area: "document", namespaceId: "ns_a", documentId: "doc_1", runId: null }],
    ["namespaces/ns_a/documents/doc_1/runs/run9/chunks.json", { area: "document", namespaceId: "ns_a", documentId: "doc_1", runId: "run9" }],
    ["namespaces/ns_a/documents/doc_1/runs/run9/attempt/chunks.json", { area: "document", namespaceId: "ns_a", documentId: "doc_1", runId: "run9" }],
    ["namespaces/ns_a/jobs/job_1/payload.json", { area: "job", namespaceId: "ns_a", jobId: "job_1" }],
    ["namespaces/ns_a/keyword/_/doc_1/run9.json", { area: "keyword", namespaceId: "ns_a", tenantId: null, documentId: "doc_1", runId: "run9" }],
    ["namespaces/ns_a/keyword/t-acme/doc_1/run9.json", { area: "keyword", namespaceId: "ns_a", tenantId: "acme", documentId: "doc_1", runId: "run9" }],
    ["namespaces/ns_a/jobs/job_1/other.json", { area: "unknown", namespaceId: "ns_a" }],
    ["namespaces/ns_a/elsewhere/x", { area: "unknown", namespaceId: "ns_a" }],
  ])("reads %s", (key, owner) => {
    expect(ownerOf(key)).toEqual(owner);
  });

  it("ignores keys outside the namespaces root", () => {
    expect(ownerOf("staging/x")).toBeNull();
    expect(ownerOf("namespaces/")).toBeNull();
  });
});

describe("vectorOrphanReason", () => {
  const partition = { namespaceId: "ns_a", tenantId: null, dimension: 384 };
  const document = {
    id: "doc_1",
    namespaceId: "ns_a",
    tenantId: null,
    generation: { runId: "live", totalChunks: 3 },
    retiredGeneration: { runId: "old", totalChunks: 5 },
    checkpoint: { runId: "next", stagingKey: "k", embedded: 1, totalChunks: 4, totalCharacters: 0, totalPages: 0, tokens: 0 },
  } as unknown as DocumentRecord;

  it("keeps the current, retired and in-progress generations within their chunk counts", () => {
    for (const key of ["doc_1#live#2", "doc_1#old#4", "doc_1#next#3"]) expect(vectorOrphanReason(key, document, partition), key).toBeNull();
  });

  it("names why anything else is an orphan", () => {
    expect(vectorOrphanReason("doc_1#live#3", document, partition)).toBe("beyondGeneration");
    expect(vectorOrphanReason("doc_1#gone#0", document, partition)).toBe("staleRun");
    expect(vectorOrphanReason("doc_2#live#0", undefined, partition)).toBe("documentGone");
    expect(vectorOrphanReason("doc_1#live#0", document, { ...partition, tenantId: "acme" })).toBe("wrongPartition");
    expect(vectorOrphanReason("doc_1#live#0", document, { ...partition, namespaceId: "ns_b" })).toBe("wrongPartition");
    expect(vectorOrphanReason("free-form", document, partition)).toBe("malformed");
  });
});
