import type { DocumentRecord } from "../../functions/shared/domain/document.ts";
import type { IngestJobRecord } from "../../functions/shared/domain/ingest-job.ts";

/** The moments of a record queued at the start of 2026 and untouched since. */
const QUEUED_AT = "2026-01-01T00:00:00.000Z";
const moments = {
  createdAt: QUEUED_AT,
  queuedAt: QUEUED_AT,
  preProcessingAt: null,
  processingAt: null,
  completedAt: null,
  failedAt: null,
  updatedAt: QUEUED_AT,
  runId: "run1",
};

/** A well-formed job record for tests that build one without a table. */
export function aJob(overrides: Partial<IngestJobRecord> = {}): IngestJobRecord {
  return {
    id: "job_1",
    namespaceId: "ns_1",
    tenantId: null,
    externalId: null,
    name: null,
    status: "QUEUED",
    error: null,
    payload: { type: "TEXT", text: "hello" },
    payloadObjectKey: null,
    config: null,
    ...moments,
    documentIds: ["doc_1"],
    documentsTotal: 1,
    documentsCreated: false,
    documentsCompleted: 0,
    documentsFailed: 0,
    ...overrides,
  };
}

/** A well-formed document record of `aJob()` for tests that build one without a table. */
export function aDocument(overrides: Partial<DocumentRecord> = {}): DocumentRecord {
  return {
    id: "doc_1",
    ingestJobId: "job_1",
    namespaceId: "ns_1",
    tenantId: "acme",
    name: null,
    status: "QUEUED",
    error: null,
    source: { type: "TEXT", text: "hello" },
    sourceObjectKey: null,
    properties: null,
    config: null,
    totalChunks: null,
    totalTokens: null,
    totalCharacters: null,
    totalPages: null,
    ...moments,
    checkpoint: null,
    generation: null,
    retiredGeneration: null,
    ...overrides,
  };
}
