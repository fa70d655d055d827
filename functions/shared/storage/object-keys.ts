import { randomBytes } from "node:crypto";

/**
 * Every S3 key of the service is built here. Everything of a namespace lives under its prefix, so a
 * namespace can be emptied, audited or reconciled by prefix.
 */
export function namespacePrefix(namespaceId: string): string {
  return `namespaces/${namespaceId}/`;
}

export function uploadPrefix(namespaceId: string): string {
  return `${namespacePrefix(namespaceId)}uploads/`;
}

/** A fresh key for an upload: random folder, then a safe version of the caller's file name. */
export function newUploadKey(namespaceId: string, fileName: string): string {
  return `${uploadPrefix(namespaceId)}${randomBytes(12).toString("base64url")}/${safeFileName(fileName)}`;
}

export function documentPrefix(namespaceId: string, documentId: string): string {
  return `${namespacePrefix(namespaceId)}documents/${documentId}/`;
}

export function chunksKey(namespaceId: string, documentId: string): string {
  return `${documentPrefix(namespaceId, documentId)}chunks.json`;
}

export function stagingRunPrefix(namespaceId: string, documentId: string, runId: string): string {
  return `${documentPrefix(namespaceId, documentId)}runs/${runId}/`;
}

/**
 * The chunks file of a run in progress, one per attempt: two deliveries of the same step may parse
 * a changed remote file differently, and only the attempt that wins the checkpoint is ever read.
 */
export function stagingChunksKey(namespaceId: string, documentId: string, runId: string, attemptId: string): string {
  return `${stagingRunPrefix(namespaceId, documentId, runId)}${attemptId}/chunks.json`;
}

/** Pages of a long paged file extracted in one step, kept until the run's last step joins them. */
export function stagingPagesKey(namespaceId: string, documentId: string, runId: string, attemptId: string, firstPage: number): string {
  return `${stagingRunPrefix(namespaceId, documentId, runId)}${attemptId}/pages-${firstPage}.json`;
}

/** A fetched (FILE URL) source kept for the later steps of a run that reads it a page range at a time. */
export function stagingSourceCopyKey(namespaceId: string, documentId: string, runId: string, attemptId: string): string {
  return `${stagingRunPrefix(namespaceId, documentId, runId)}${attemptId}/source`;
}

export function documentSourceKey(namespaceId: string, documentId: string): string {
  return `${documentPrefix(namespaceId, documentId)}source.txt`;
}

export function jobPayloadKey(namespaceId: string, jobId: string): string {
  return `${namespacePrefix(namespaceId)}jobs/${jobId}/payload.json`;
}

/** Letters, digits, dot, dash and underscore; everything else becomes a dash. Keeps the extension. */
export function safeFileName(fileName: string): string {
  const base = fileName.split(/[\\/]/).pop() ?? "";
  const cleaned = base
    .normalize("NFKD")
    .replace(/[^A-Za-z0-9._-]+/g, "-")
    .replace(/-+/g, "-")
    .replace(/^[-.]+/, "");
  const limited = cleaned.length > 120 ? cleaned.slice(cleaned.length - 120) : cleaned;
  return limited || "file";
}

/** The file name part of an upload key, as the document's default name. */
export function fileNameOfKey(key: string): string {
  return key.split("/").pop() ?? key;
}
