import type { IngestJobRecord, IngestPayload } from "../ingest-job.ts";
import type { Wire } from "./schemas.ts";
import { runTimestampsToWire } from "./run-timestamps.ts";

/** A job as callers see it, with its payload (read back from S3 when large: workflows/records-to-wire.ts). */
export function jobToWire(record: IngestJobRecord, payload: IngestPayload): Wire<"IngestJob"> {
  return {
    id: record.id,
    namespaceId: record.namespaceId,
    tenantId: record.tenantId,
    externalId: record.externalId,
    name: record.name,
    status: record.status,
    error: record.error,
    payload,
    config: record.config,
    ...runTimestampsToWire(record),
  };
}
