import { mapLimited } from "../platform/concurrency.ts";
import { documentSource, jobPayload } from "./ingestion/stored-payloads.ts";
import { type DocumentRecord, documentToWire } from "../domain/document.ts";
import { type IngestJobRecord, jobToWire } from "../domain/ingest-job.ts";

/** Jobs and documents as callers see them, with large payloads and sources read back from S3. */
export async function jobsToWire(records: IngestJobRecord[]) {
  return mapLimited(records, 16, async (record) => jobToWire(record, await jobPayload(record)));
}

export async function documentsToWire(records: DocumentRecord[]) {
  return mapLimited(records, 16, async (record) => documentToWire(record, await documentSource(record)));
}
