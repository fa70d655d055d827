import { MAX_LAMBDA_EVENT_BYTES } from "../platform/request-limits.ts";
import * as z from "../platform/zod.ts";
import { ingestConfig, type IngestConfig } from "./ingest-config.ts";
import type { Status } from "./statuses.ts";

/**
 * Longest TEXT payload, in UTF-16 code units (what the schema counts): 880,000. The request reaches
 * the function only inside a Lambda event of at most 6 MB (MAX_LAMBDA_EVENT_BYTES), where the text
 * is escaped twice: in the client's JSON body a character may take six bytes (`\u4e2d`; Python's
 * json.dumps writes every non-ASCII character so), and the event carries the body as a JSON string,
 * which escapes each backslash again, so seven bytes at worst. 128 KB are left for the rest of the
 * event (headers, request context, the job's other fields). Larger texts go through an upload.
 */
export const MAX_TEXT_CHARACTERS = Math.floor((MAX_LAMBDA_EVENT_BYTES - 128 * 1024) / 7 / 1000) * 1000;
const TEXT_TOO_LONG = `must be at most ${MAX_TEXT_CHARACTERS.toLocaleString("en-US")} characters; send longer texts as a file upload (MANAGED_FILE)`;
export const MAX_BATCH_ITEMS = 500;

const fileName = z.optional(z.nullable(z.string().check(z.trim(), z.maxLength(255))));

const httpUrl = z.string().check(
  z.maxLength(2048),
  z.refine((value) => {
    try {
      const url = new URL(value);
      return url.protocol === "http:" || url.protocol === "https:";
    } catch {
      return false;
    }
  }, "must be an http or https URL"),
);

const textPayload = z.object({
  type: z.literal("TEXT"),
  text: z.string().check(z.minLength(1), z.maxLength(MAX_TEXT_CHARACTERS, TEXT_TOO_LONG)),
  fileName,
});
const managedFilePayload = z.object({
  type: z.literal("MANAGED_FILE"),
  key: z.string().check(z.minLength(1), z.maxLength(1024)),
  fileName,
});
const filePayload = z.object({ type: z.literal("FILE"), fileUrl: httpUrl, fileName });

const PAYLOAD_TYPE_ERROR = { error: "must be one of TEXT, FILE, MANAGED_FILE, BATCH" };

const batchItem = z.discriminatedUnion(
  "type",
  [
    z.extend(textPayload, { config: z.optional(z.nullable(ingestConfig)) }),
    z.extend(managedFilePayload, { config: z.optional(z.nullable(ingestConfig)) }),
    z.extend(filePayload, { config: z.optional(z.nullable(ingestConfig)) }),
  ],
  { error: "must be one of TEXT, FILE, MANAGED_FILE" },
);

export const ingestPayload = z.discriminatedUnion(
  "type",
  [
    textPayload,
    managedFilePayload,
    filePayload,
    z.object({ type: z.literal("BATCH"), items: z.array(batchItem).check(z.minLength(1), z.maxLength(MAX_BATCH_ITEMS)) }),
  ],
  PAYLOAD_TYPE_ERROR,
);

export type IngestPayload = z.output<typeof ingestPayload>;
export type PayloadItem = z.output<typeof batchItem>;

export const createIngestJobBody = z.object({
  name: z.optional(z.nullable(z.string().check(z.trim(), z.maxLength(256)))),
  payload: ingestPayload,
  config: z.optional(z.nullable(ingestConfig)),
  externalId: z.optional(z.nullable(z.string().check(z.trim(), z.minLength(1), z.maxLength(256)))),
});

export type CreateIngestJobInput = z.output<typeof createIngestJobBody>;

export interface IngestJobRecord {
  id: string;
  namespaceId: string;
  tenantId: string | null;
  externalId: string | null;
  name: string | null;
  status: Status;
  error: string | null;
  /** Absent when the payload was too large for the table and lives in S3 (`payloadObjectKey`). */
  payload?: IngestPayload;
  payloadObjectKey?: string | null;
  config: IngestConfig | null;
  createdAt: string;
  queuedAt: string | null;
  preProcessingAt: string | null;
  processingAt: string | null;
  completedAt: string | null;
  failedAt: string | null;
  updatedAt: string;
  /** Identifies the current (re-)ingestion run; work messages of an earlier run are ignored. */
  runId: string;
  /** One document id per payload item, chosen when the job is created so retries recreate the same documents. */
  documentIds: string[];
  /** Documents in the current run, and whether the first run already created them. */
  documentsTotal: number;
  documentsCreated: boolean;
  documentsCompleted: number;
  documentsFailed: number;
  /** The status a deletion found, restored if the deletion cannot be queued. */
  statusBeforeDelete?: Status | null;
}

/** Normalises the payload: empty names dropped, and BATCH duplicates of one URL or one key kept once. */
export function normalisePayload(payload: IngestPayload): IngestPayload {
  const named = <T extends { fileName?: string | null }>(item: T): T => {
    const { fileName: name, ...rest } = item;
    return (name ? { ...rest, fileName: name } : rest) as T;
  };
  if (payload.type !== "BATCH") return named(payload);
  const seen = new Set<string>();
  const items: PayloadItem[] = [];
  for (const item of payload.items) {
    const identity = item.type === "FILE" ? `FILE ${item.fileUrl}` : item.type === "MANAGED_FILE" ? `KEY ${item.key}` : null;
    if (identity !== null) {
      if (seen.has(identity)) continue;
      seen.add(identity);
    }
    const { config, ...rest } = named(item);
    items.push(config ? ({ ...rest, config } as PayloadItem) : (rest as PayloadItem));
  }
  return { type: "BATCH", items };
}

/** The payload as a list of document items (a single item unless BATCH). */
export function payloadItems(payload: IngestPayload): PayloadItem[] {
  return payload.type === "BATCH" ? payload.items : [payload];
}

