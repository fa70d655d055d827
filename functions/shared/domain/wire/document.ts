import type { DocumentRecord, DocumentSource } from "../document.ts";
import type { Wire } from "./schemas.ts";
import { runTimestampsToWire } from "./run-timestamps.ts";

/** A document as callers see it, with its source (read back from S3 when large: workflows/records-to-wire.ts). */
export function documentToWire(record: DocumentRecord, source: DocumentSource): Wire<"Document"> {
  return {
    id: record.id,
    ingestJobId: record.ingestJobId,
    name: record.name,
    tenantId: record.tenantId,
    status: record.status,
    error: record.error,
    source,
    properties: record.properties,
    config: record.config,
    totalChunks: record.totalChunks,
    totalTokens: record.totalTokens,
    totalCharacters: record.totalCharacters,
    totalPages: record.totalPages,
    ...runTimestampsToWire(record),
  };
}
