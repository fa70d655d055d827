import type { RouteContract } from "../../shared/http/contract.ts";
import { documentListQuery } from "../../shared/domain/list-query.ts";
import { documentPath, namespacePath } from "../../shared/domain/params.ts";

const DOCUMENTS = "/v1/namespace/{namespaceId}/documents";
/** The document routes read one document of the caller's partition, whatever the namespace's state. */
const oneDocument = { path: documentPath, tenant: true, namespace: "any" } as const;

export const listDocuments = {
  operationId: "listDocuments",
  method: "GET",
  path: DOCUMENTS,
  summary: "List documents",
  tag: "Documents",
  request: { path: namespacePath, tenant: true, namespace: "any", query: documentListQuery },
  response: { status: 200, data: "Document", list: true, paginated: true },
} as const satisfies RouteContract;

export const getDocument = {
  operationId: "getDocument",
  method: "GET",
  path: `${DOCUMENTS}/{documentId}`,
  summary: "Get a document",
  tag: "Documents",
  request: oneDocument,
  response: { status: 200, data: "Document" },
} as const satisfies RouteContract;

export const deleteDocument = {
  operationId: "deleteDocument",
  method: "DELETE",
  path: `${DOCUMENTS}/{documentId}`,
  summary: "Delete a document (queued)",
  tag: "Documents",
  conflicts: "the document is already being deleted, or its job is still creating its documents",
  request: oneDocument,
  response: { status: 200, data: "Document" },
} as const satisfies RouteContract;

export const createFileDownloadUrl = {
  operationId: "createFileDownloadUrl",
  method: "POST",
  path: `${DOCUMENTS}/{documentId}/file-download-url`,
  summary: "Download URL of the uploaded file",
  tag: "Documents",
  request: oneDocument,
  response: { status: 200, data: "DownloadUrl" },
} as const satisfies RouteContract;

export const createChunksDownloadUrl = {
  operationId: "createChunksDownloadUrl",
  method: "POST",
  path: `${DOCUMENTS}/{documentId}/chunks-download-url`,
  summary: "Download URL of the chunks JSON",
  tag: "Documents",
  conflicts: "the document is not COMPLETED",
  request: oneDocument,
  response: { status: 200, data: "DownloadUrl" },
} as const satisfies RouteContract;
