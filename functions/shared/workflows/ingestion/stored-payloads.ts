import type { DocumentRecord, DocumentSource } from "../../domain/document.ts";
import type { IngestJobRecord, IngestPayload } from "../../domain/ingest-job.ts";
import { insertIngestJob, type NewIngestJob, removeIngestJobRecord } from "../../db/ingest-jobs.ts";
import { newId } from "../../platform/ids.ts";
import { deleteObjects, getObjectText, putObject } from "../../storage/objects.ts";
import { jobPayloadKey } from "../../storage/object-keys.ts";

/**
 * Job payloads and TEXT sources too large for their record live in S3 and the record keeps the key.
 * The records are the repositories' business; which bytes go where is decided here.
 */

/** Payloads larger than this live in S3, so a job record never nears DynamoDB's 400 KB item limit. */
export const INLINE_PAYLOAD_BYTES = 64 * 1024;

/** Writes a QUEUED job, its payload first when it goes to S3 (and removed again if the record is refused). */
export async function insertJobWithPayload(input: Omit<NewIngestJob, "id" | "payload"> & { payload: IngestPayload }): Promise<IngestJobRecord> {
  const id = newId("ingestJob");
  const serialised = JSON.stringify(input.payload);
  if (Buffer.byteLength(serialised) <= INLINE_PAYLOAD_BYTES) return insertIngestJob({ ...input, id, payload: { inline: input.payload } });
  const objectKey = jobPayloadKey(input.namespaceId, id);
  await putObject(objectKey, serialised, "application/json");
  try {
    return await insertIngestJob({ ...input, id, payload: { objectKey } });
  } catch (error) {
    await deleteObjects([objectKey]);
    throw error;
  }
}

/** Removes a job record, its externalId reservation and its stored payload. */
export async function removeJobWithPayload(record: IngestJobRecord): Promise<void> {
  await removeIngestJobRecord(record);
  if (record.payloadObjectKey) await deleteObjects([record.payloadObjectKey]);
}

export async function jobPayload(record: IngestJobRecord): Promise<IngestPayload> {
  if (record.payload) return record.payload;
  const stored = record.payloadObjectKey ? await getObjectText(record.payloadObjectKey) : null;
  if (stored === null) throw new Error(`payload of ingest job ${record.id} is missing from storage`);
  return JSON.parse(stored) as IngestPayload;
}

export async function documentSource(record: DocumentRecord): Promise<DocumentSource> {
  if (record.source.type !== "TEXT" || "text" in record.source) return record.source as DocumentSource;
  const text = record.sourceObjectKey ? await getObjectText(record.sourceObjectKey) : null;
  if (text === null) throw new Error(`source text of document ${record.id} is missing from storage`);
  return { type: "TEXT", text };
}
