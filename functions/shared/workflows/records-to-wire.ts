import { mapLimited } from "../platform/concurrency.ts";
import { documentSource, jobPayload } from "./ingestion/stored-payloads.ts";
import type { DocumentRecord } from "../domain/document.ts";
import type { IngestJobRecord } from "../domain/ingest-job.ts";
import { documentToWire } from "../domain/wire/document.ts";
import { jobToWire } from "../domain/wire/ingest-job.ts";
import type { Wire } from "../domain/wire/schemas.ts";

/** Jobs and documents as callers see them, with large payloads and sources read back from S3. */
export async function jobsToWire(records: IngestJobRecord[]): Promise<Wire<"IngestJob">[]> {
  return mapLimited(records, 16, readJobToWire);
}

export async function readJobToWire(record: IngestJobRecord): Promise<Wire<"IngestJob">> {
  return jobToWire(record, await jobPayload(record));
}

export async function documentsToWire(records: DocumentRecord[]): Promise<Wire<"Document">[]> {
  return mapLimited(records, 16, readDocumentToWire);
}

export async function readDocumentToWire(record: DocumentRecord): Promise<Wire<"Document">> {
  return documentToWire(record, await documentSource(record));
}
