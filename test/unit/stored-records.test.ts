import { describe, expect, it } from "vitest";
import { SEARCH_FIELDS } from "../../functions/shared/db/documents.ts";
import { jobItem } from "../../functions/shared/db/ingest-jobs.ts";
import { documentFieldsFromItem, documentFromItem, jobFromItem, MalformedItemError } from "../../functions/shared/db/records.ts";
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
