import type { IngestConfig } from "./ingest-config.ts";
import type { Status } from "./statuses.ts";

export type DocumentSource =
  | { type: "TEXT"; text: string }
  | { type: "MANAGED_FILE"; key: string }
  | { type: "FILE"; fileUrl: string };

/** Where a resumable processing run stands; kept on the document between steps. */
export interface ProcessingCheckpoint {
  runId: string;
  /** The staging chunks file this run embeds from. */
  stagingKey: string;
  /** Chunks already embedded and written to the vector store. */
  embedded: number;
  totalChunks: number;
  totalCharacters: number;
  totalPages: number;
  tokens: number;
}

/**
 * Where the extraction of a long paged file (PDF) stands when it spreads over several worker steps:
 * the pages read so far are staged as parts, and the next step reads the same object from
 * `nextPage` on. Kept on the document while it is PRE_PROCESSING.
 */
export interface ExtractionCheckpoint {
  runId: string;
  /** The object every step reads: the upload, or the run's copy of a fetched file. */
  sourceKey: string;
  /** The object's ETag when the first step read it; a changed file fails rather than mixing versions. */
  etag: string;
  fileSize: number;
  mimeType: string;
  totalPages: number;
  nextPage: number;
  /** Staged parts (extracted page ranges), in page order. */
  parts: string[];
}

/** The vector set of a finished run; search serves only the document's current generation. */
export interface VectorGeneration {
  runId: string;
  totalChunks: number;
}

export interface DocumentRecord {
  id: string;
  ingestJobId: string;
  namespaceId: string;
  tenantId: string | null;
  name: string | null;
  status: Status;
  error: string | null;
  /** For a TEXT source too large for the table, `text` is omitted and `sourceObjectKey` names the S3 copy. */
  source: DocumentSource | { type: "TEXT" };
  sourceObjectKey: string | null;
  /** `notes`: what the reader should know about the extraction (an OCR language that was not available, an attachment left out). */
  properties: { fileSize: number; mimeType: string; notes?: string[] } | null;
  config: IngestConfig | null;
  totalChunks: number | null;
  totalTokens: number | null;
  totalCharacters: number | null;
  totalPages: number | null;
  createdAt: string;
  queuedAt: string | null;
  preProcessingAt: string | null;
  processingAt: string | null;
  completedAt: string | null;
  failedAt: string | null;
  updatedAt: string;
  runId: string;
  checkpoint: ProcessingCheckpoint | null;
  /** Absent on records written before extraction could span steps. */
  extraction?: ExtractionCheckpoint | null;
  generation: VectorGeneration | null;
  /** A replaced generation whose vectors still have to be removed. */
  retiredGeneration: VectorGeneration | null;
  /** The status a deletion found, to settle the job's counts when the document goes. */
  statusBeforeDelete?: Status | null;
}

