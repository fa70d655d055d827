import * as z from "../platform/zod.ts";
import type { DocumentRecord } from "./document.ts";
import type { IngestConfig } from "./ingest-config.ts";
import type { IngestJobRecord, IngestPayload } from "./ingest-job.ts";
import { STATUSES } from "./statuses.ts";

/*
 * Jobs and documents as stored, the schemas their repositories parse every read through. Only
 * zod factories here (free of side effects), so a bundle keeps just the schemas it parses with.
 */

const count = z.number();

const vectorGeneration = z.object({ runId: z.string(), totalChunks: count });

/** The moments of a job's or a document's current run, and the run itself, as stored. */
const runFields = {
  createdAt: z.string(),
  queuedAt: z.nullable(z.string()),
  preProcessingAt: z.nullable(z.string()),
  processingAt: z.nullable(z.string()),
  completedAt: z.nullable(z.string()),
  failedAt: z.nullable(z.string()),
  updatedAt: z.string(),
  runId: z.string(),
  statusBeforeDelete: z.optional(z.nullable(z.enum(STATUSES))),
};

/** A plain object; what it holds was validated when it was written (a merged config may break a request's rules). */
function storedObject<T>() {
  return z.custom<T>((value) => typeof value === "object" && value !== null && !Array.isArray(value));
}

/**
 * A document as stored, checked on every read: an item of another shape (a bug, a hand edit, a
 * record of an older layout nobody migrated) fails loudly where it is read, not three steps later.
 * Loose, so an attribute the type does not name (a sweep count) is kept.
 */
export const documentRecordSchema = z.looseObject({
  id: z.string(),
  ingestJobId: z.string(),
  namespaceId: z.string(),
  tenantId: z.nullable(z.string()),
  name: z.nullable(z.string()),
  status: z.enum(STATUSES),
  error: z.nullable(z.string()),
  source: z.discriminatedUnion("type", [
    z.object({ type: z.literal("TEXT"), text: z.optional(z.string()) }),
    z.object({ type: z.literal("MANAGED_FILE"), key: z.string() }),
    z.object({ type: z.literal("FILE"), fileUrl: z.string() }),
  ]),
  sourceObjectKey: z.nullable(z.string()),
  properties: z.nullable(z.looseObject({ fileSize: count, mimeType: z.string(), notes: z.optional(z.array(z.string())) })),
  config: z.nullable(storedObject<IngestConfig>()),
  totalChunks: z.nullable(count),
  totalTokens: z.nullable(count),
  totalCharacters: z.nullable(count),
  totalPages: z.nullable(count),
  ...runFields,
  checkpoint: z.nullable(
    z.object({
      runId: z.string(),
      stagingKey: z.string(),
      embedded: count,
      totalChunks: count,
      totalCharacters: count,
      totalPages: count,
      tokens: count,
    }),
  ),
  extraction: z.optional(
    z.nullable(
      z.object({
        runId: z.string(),
        sourceKey: z.string(),
        etag: z.string(),
        fileSize: count,
        mimeType: z.string(),
        totalPages: count,
        nextPage: count,
        parts: z.array(z.string()),
      }),
    ),
  ),
  generation: z.nullable(vectorGeneration),
  retiredGeneration: z.nullable(vectorGeneration),
}) satisfies z.ZodMiniType<DocumentRecord>;

/** An ingest job as stored, checked on every read (see `documentRecordSchema`). */
export const ingestJobRecordSchema = z.looseObject({
  id: z.string(),
  namespaceId: z.string(),
  tenantId: z.nullable(z.string()),
  externalId: z.nullable(z.string()),
  name: z.nullable(z.string()),
  status: z.enum(STATUSES),
  error: z.nullable(z.string()),
  payload: z.optional(storedObject<IngestPayload>()),
  payloadObjectKey: z.optional(z.nullable(z.string())),
  config: z.nullable(storedObject<IngestConfig>()),
  ...runFields,
  documentIds: z.array(z.string()),
  documentsTotal: z.number(),
  documentsCreated: z.boolean(),
  documentsCompleted: z.number(),
  documentsFailed: z.number(),
}) satisfies z.ZodMiniType<IngestJobRecord>;
