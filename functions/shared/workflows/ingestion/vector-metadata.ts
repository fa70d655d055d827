import type { DocumentRecord } from "../../domain/document.ts";
import { unprocessable } from "../../domain/errors.ts";
import { type IngestConfig, mergeConfigs } from "../../domain/ingest-config.ts";
import type { PayloadItem } from "../../domain/ingest-job.ts";
import type { MetadataValue } from "../../domain/metadata-filter.ts";
import { newId } from "../../platform/ids.ts";
import { MAX_SHEET_NAME_CHARACTERS } from "./chunk-placement.ts";
import { metadataViolation, TEXT_METADATA_KEY } from "../../vector-store/limits.ts";

/**
 * The metadata every vector of a document carries: the user's (job config merged with the item's),
 * then the keys the service adds. Chunks add `sequence_number` and, where they apply, `page_number`,
 * `sheet`, `slide` and `repeated_header`.
 */
export function documentMetadata(document: DocumentRecord, settings: IngestConfig): Record<string, MetadataValue> {
  return {
    ...settings.metadata,
    ...(document.name ? { filename: document.name } : {}),
    ...(document.tenantId ? { tenantId: document.tenantId } : {}),
    namespaceId: document.namespaceId,
    documentId: document.id,
    ingestJobId: document.ingestJobId,
  };
}

/** Longest name a document may get (a file name, or a default derived from a key or URL). */
const MAX_NAME_CHARACTERS = 255;

/**
 * Refuses (422, naming the field) an item whose vectors would break the vector store's metadata
 * limits once the job's and the item's metadata are merged and the service's own keys are added,
 * judged with the longest values those keys can take. Caught here, the caller hears at once; at
 * write time the document would fail after its work was done.
 */
export function assertVectorMetadataFits(
  item: PayloadItem,
  jobConfig: IngestConfig | null,
  partition: { namespaceId: string; tenantId: string | null },
  at: string,
): void {
  const itemConfig = "config" in item && item.config ? item.config : null;
  const merged = mergeConfigs(jobConfig, itemConfig).metadata ?? {};
  const worstCase: Record<string, MetadataValue> = {
    ...merged,
    filename: "x".repeat(MAX_NAME_CHARACTERS),
    ...(partition.tenantId ? { tenantId: partition.tenantId } : {}),
    namespaceId: partition.namespaceId,
    documentId: newId("document"),
    ingestJobId: newId("ingestJob"),
    sequence_number: Number.MAX_SAFE_INTEGER,
    page_number: Number.MAX_SAFE_INTEGER,
    sheet: "x".repeat(MAX_SHEET_NAME_CHARACTERS),
    slide: Number.MAX_SAFE_INTEGER,
    repeated_header: Number.MAX_SAFE_INTEGER,
    [TEXT_METADATA_KEY]: "",
  };
  const violation = metadataViolation(worstCase);
  if (!violation) return;
  const field = itemConfig?.metadata ? `${at}.config.metadata` : "config.metadata";
  throw unprocessable(
    `${field}: with the job's and the item's metadata merged and the service's own keys added ` +
      `(filename, tenantId, namespaceId, documentId, ingestJobId, sequence_number, page_number, sheet, slide, repeated_header, text), ${violation.charAt(0).toLowerCase()}${violation.slice(1)}`,
  );
}
