/**
 * The route table: which function serves which routes, and what each function may touch. Each
 * route is its contract (functions/http/<feature>/routes.ts: method, path, request and response,
 * what the OpenAPI document says of it). Pure data, read by the CDK stack, the local gateway and
 * the OpenAPI build alike, so they cannot drift.
 */
import type { QueueName } from "../functions/shared/queue/names.ts";
import type { OwnedItem } from "../functions/shared/db/dynamo/keys.ts";
import type { VectorOperation } from "../functions/shared/vector-store/registry.ts";
import type { HttpMethod, RouteContract } from "../functions/shared/http/contract.ts";

import { chat } from "../functions/http/chat/chat.route.ts";
import { getOpenApiDocument } from "../functions/http/docs/openapi.route.ts";
import { getApiReference } from "../functions/http/docs/reference.route.ts";
import { createChunksDownloadUrl } from "../functions/http/documents/chunks-download-url.route.ts";
import { deleteDocument } from "../functions/http/documents/delete.route.ts";
import { createFileDownloadUrl } from "../functions/http/documents/file-download-url.route.ts";
import { getDocument } from "../functions/http/documents/get.route.ts";
import { listDocuments } from "../functions/http/documents/list.route.ts";
import { chatHostedPage } from "../functions/http/hosted/chat.route.ts";
import { getHostedDocumentFile } from "../functions/http/hosted/document-file.route.ts";
import { mcpHostedPage, mcpHostedPageEventStream } from "../functions/http/hosted/mcp.route.ts";
import { getHostedPage } from "../functions/http/hosted/page.route.ts";
import { searchHostedPage } from "../functions/http/hosted/search.route.ts";
import { completeHostedPageSignIn } from "../functions/http/hosted/session.route.ts";
import { openHostedPageSignInLink } from "../functions/http/hosted/sign-in-link.route.ts";
import { requestHostedPageSignIn } from "../functions/http/hosted/sign-in.route.ts";
import { deleteHosting } from "../functions/http/hosting/delete.route.ts";
import { enableHosting } from "../functions/http/hosting/enable.route.ts";
import { getHosting } from "../functions/http/hosting/get.route.ts";
import { updateHosting, replaceHosting } from "../functions/http/hosting/update.route.ts";
import { createIngestJob } from "../functions/http/ingest-jobs/create.route.ts";
import { deleteIngestJob } from "../functions/http/ingest-jobs/delete.route.ts";
import { getIngestJob } from "../functions/http/ingest-jobs/get.route.ts";
import { listIngestJobs } from "../functions/http/ingest-jobs/list.route.ts";
import { reingestJob } from "../functions/http/ingest-jobs/re-ingest.route.ts";
import { mcp, mcpEventStream } from "../functions/http/mcp/mcp.route.ts";
import { createNamespace } from "../functions/http/namespaces/create.route.ts";
import { deleteNamespace } from "../functions/http/namespaces/delete.route.ts";
import { getNamespace } from "../functions/http/namespaces/get.route.ts";
import { listNamespaces } from "../functions/http/namespaces/list.route.ts";
import { updateNamespace, replaceNamespace } from "../functions/http/namespaces/update.route.ts";
import { search } from "../functions/http/search/search.route.ts";
import { createUploads } from "../functions/http/uploads/create-batch.route.ts";
import { createUpload } from "../functions/http/uploads/create.route.ts";

export type { HttpMethod, QueueName, RouteContract };

/** Least privilege, per function. */
export interface FunctionAccess {
  /** Absent: the function touches no table (the docs functions). */
  table?: "read" | "readWrite";
  /**
   * With `table: "readWrite"`: the only items the function writes, by kind; its policy allows writes
   * to those partitions alone (IAM `dynamodb:LeadingKeys`). Reads stay unrestricted.
   */
  writesOnly?: readonly OwnedItem[];
  /** Reads the whole table (the reconciler's inventory); everything else reads by key and index. */
  tableScan?: boolean;
  /** `put` signs upload URLs; `read` signs download URLs and reads objects; `readWrite` also deletes. */
  bucket?: "read" | "put" | "readWrite";
  queues?: QueueName[];
  /** The vector-store operations the function uses; the store's registry row says what each needs. */
  vectors?: readonly VectorOperation[];
  /** Embeds text with the namespace's model (Bedrock in AWS). */
  embeds?: boolean;
  /** Reranks search results (Bedrock Rerank in AWS, unless the namespace chose a provider). */
  reranks?: boolean;
  /** Sends e-mail (sign-in links) from the stack's SES identity, when the stage has a sender. */
  sendsEmail?: boolean;
  /** Answers with a language model (Bedrock ConverseStream in AWS, unless the llmConfig names an endpoint). */
  chats?: boolean;
  /** Accepts a chat model choice (a hosting's llmConfig) and checks it against the deployment's allow-list; implied by `chats`. */
  choosesChatModel?: boolean;
}

interface HttpFunctionRow {
  /** Construct id of the function. */
  id: string;
  /** Module path from the project root; it exports `handler`, built from one of `routes` (they share its request). */
  entry: string;
  /** The contracts of the routes it serves; a function serving two methods (PATCH and PUT) lists a contract for each. */
  routes: RouteContract[];
  access: FunctionAccess;
  memoryMb?: number;
  timeoutSeconds?: number;
}

export interface HttpFunctionDefinition extends HttpFunctionRow {
  /** Served without the authorizer or a usage key (the contracts' `request.public`): the docs and hosted pages. */
  public?: boolean;
  /**
   * The integration streams the function's response (Lambda response streaming; the contracts'
   * `request.stream`), and the 29-second integration limit gives way to the function's timeout.
   */
  streams?: boolean;
}

/** A long answer from a slow model; streamed integrations may run past API Gateway's 29 seconds. */
const CHAT_TIMEOUT_SECONDS = 120;

const ROWS: HttpFunctionRow[] = [
  {
    id: "ListNamespaces",
    entry: "functions/http/namespaces/list.ts",
    routes: [listNamespaces],
    access: { table: "read" },
  },
  {
    id: "CreateNamespace",
    entry: "functions/http/namespaces/create.ts",
    routes: [createNamespace],
    access: { table: "readWrite" },
  },
  {
    id: "GetNamespace",
    entry: "functions/http/namespaces/get.ts",
    routes: [getNamespace],
    access: { table: "read" },
  },
  {
    id: "UpdateNamespace",
    entry: "functions/http/namespaces/update.ts",
    routes: [updateNamespace, replaceNamespace],
    access: { table: "readWrite" },
  },
  {
    id: "DeleteNamespace",
    entry: "functions/http/namespaces/delete.ts",
    routes: [deleteNamespace],
    access: { table: "readWrite", queues: ["delete"] },
  },
  {
    id: "GetHosting",
    entry: "functions/http/hosting/get.ts",
    routes: [getHosting],
    access: { table: "read" },
  },
  {
    id: "EnableHosting",
    entry: "functions/http/hosting/enable.ts",
    routes: [enableHosting],
    access: { table: "readWrite" },
  },
  {
    id: "UpdateHosting",
    entry: "functions/http/hosting/update.ts",
    routes: [updateHosting, replaceHosting],
    access: { table: "readWrite", choosesChatModel: true },
  },
  {
    id: "DeleteHosting",
    entry: "functions/http/hosting/delete.ts",
    routes: [deleteHosting],
    access: { table: "readWrite" },
  },
  {
    id: "CreateUploadUrl",
    entry: "functions/http/uploads/create.ts",
    routes: [createUpload],
    access: { table: "read", bucket: "put" },
  },
  {
    id: "CreateUploadUrls",
    entry: "functions/http/uploads/create-batch.ts",
    routes: [createUploads],
    access: { table: "read", bucket: "put" },
  },
  {
    id: "CreateIngestJob",
    entry: "functions/http/ingest-jobs/create.ts",
    routes: [createIngestJob],
    access: { table: "readWrite", bucket: "readWrite", queues: ["ingest"], vectors: ["count"] },
  },
  {
    id: "ListIngestJobs",
    entry: "functions/http/ingest-jobs/list.ts",
    routes: [listIngestJobs],
    // Writes only the cursor-signing secret, once, on first use.
    access: { table: "readWrite", bucket: "read" },
  },
  {
    id: "GetIngestJob",
    entry: "functions/http/ingest-jobs/get.ts",
    routes: [getIngestJob],
    access: { table: "read", bucket: "read" },
  },
  {
    id: "DeleteIngestJob",
    entry: "functions/http/ingest-jobs/delete.ts",
    routes: [deleteIngestJob],
    access: { table: "readWrite", bucket: "read", queues: ["delete"] },
  },
  {
    id: "ReingestJob",
    entry: "functions/http/ingest-jobs/re-ingest.ts",
    routes: [reingestJob],
    access: { table: "readWrite", queues: ["ingest"] },
  },
  {
    id: "DeleteDocument",
    entry: "functions/http/documents/delete.ts",
    routes: [deleteDocument],
    access: { table: "readWrite", bucket: "read", queues: ["delete"] },
  },
  {
    id: "ListDocuments",
    entry: "functions/http/documents/list.ts",
    routes: [listDocuments],
    access: { table: "readWrite", bucket: "read" },
  },
  {
    id: "GetDocument",
    entry: "functions/http/documents/get.ts",
    routes: [getDocument],
    access: { table: "read", bucket: "read" },
  },
  {
    id: "CreateFileDownloadUrl",
    entry: "functions/http/documents/file-download-url.ts",
    routes: [createFileDownloadUrl],
    access: { table: "read", bucket: "read" },
  },
  {
    id: "CreateChunksDownloadUrl",
    entry: "functions/http/documents/chunks-download-url.ts",
    routes: [createChunksDownloadUrl],
    access: { table: "read", bucket: "read" },
  },
  {
    id: "Search",
    entry: "functions/http/search/search.ts",
    routes: [search],
    access: { table: "read", bucket: "read", vectors: ["query"], embeds: true, reranks: true },
  },
  {
    id: "Chat",
    entry: "functions/http/chat/chat.ts",
    routes: [chat],
    // Reads the hosting for the namespace's model and prompt.
    access: { table: "read", bucket: "read", vectors: ["query"], embeds: true, reranks: true, chats: true },
    timeoutSeconds: CHAT_TIMEOUT_SECONDS,
  },
  {
    id: "Mcp",
    entry: "functions/http/mcp/mcp.ts",
    routes: [mcp, mcpEventStream],
    // Its tools search (and expand), list and read documents, and ingest (as the routes that do each).
    access: { table: "readWrite", bucket: "readWrite", queues: ["ingest"], vectors: ["query", "count"], embeds: true, reranks: true },
    timeoutSeconds: 29,
  },
  {
    id: "OpenApiDocument",
    entry: "functions/http/docs/openapi.ts",
    routes: [getOpenApiDocument],
    access: {},
  },
  {
    id: "ApiReference",
    entry: "functions/http/docs/reference.ts",
    routes: [getApiReference],
    access: {},
  },
  {
    id: "HostedPage",
    entry: "functions/http/hosted/page.ts",
    routes: [getHostedPage],
    // Creates the session-signing secret on first use.
    access: { table: "readWrite", writesOnly: ["serviceSecret"] },
  },
  {
    id: "HostedSignIn",
    entry: "functions/http/hosted/sign-in.ts",
    routes: [requestHostedPageSignIn],
    // Counts the visitor's requests and queues every one for the mail worker (functions/workers/mail.ts).
    access: { table: "readWrite", writesOnly: ["rateWindow"], queues: ["mail"] },
  },
  {
    id: "HostedSignInLink",
    entry: "functions/http/hosted/sign-in-link.ts",
    routes: [openHostedPageSignInLink],
    access: { table: "read" },
  },
  {
    id: "HostedSession",
    entry: "functions/http/hosted/session.ts",
    routes: [completeHostedPageSignIn],
    // Uses up the sign-in link (and its pending mark); signs with the session secret, created on first use.
    access: { table: "readWrite", writesOnly: ["signIn", "serviceSecret"] },
  },
  {
    id: "HostedSearch",
    entry: "functions/http/hosted/search.ts",
    routes: [searchHostedPage],
    // Writes only its rate-limit counters, and the session secret on first use.
    access: { table: "readWrite", writesOnly: ["rateWindow", "serviceSecret"], bucket: "read", vectors: ["query"], embeds: true, reranks: true },
  },
  {
    id: "HostedDocumentFile",
    entry: "functions/http/hosted/document-file.ts",
    routes: [getHostedDocumentFile],
    // Writes only its rate-limit counters (and the session key, as the search tab); reads the object's head and signs a GET of it.
    access: { table: "readWrite", writesOnly: ["rateWindow", "serviceSecret"], bucket: "read" },
  },
  {
    id: "HostedMcp",
    entry: "functions/http/hosted/mcp.ts",
    routes: [mcpHostedPage, mcpHostedPageEventStream],
    // Writes only its rate-limit counters (and the session key, as the search tab).
    access: { table: "readWrite", writesOnly: ["rateWindow", "serviceSecret"], bucket: "read", vectors: ["query"], embeds: true, reranks: true },
  },
  {
    id: "HostedChat",
    entry: "functions/http/hosted/chat.ts",
    routes: [chatHostedPage],
    // Writes only its rate-limit counters, and the session secret on first use.
    access: { table: "readWrite", writesOnly: ["rateWindow", "serviceSecret"], bucket: "read", vectors: ["query"], embeds: true, reranks: true, chats: true },
    timeoutSeconds: CHAT_TIMEOUT_SECONDS,
  },
];

/** The rows, with what their contracts' shared request says of the integration. */
export const HTTP_FUNCTIONS: HttpFunctionDefinition[] = ROWS.map((row) => {
  const request = row.routes[0]!.request;
  return { ...row, ...(request.public ? { public: true } : {}), ...(request.stream ? { streams: true } : {}) };
});

export const AUTHORIZER = { id: "Authorizer", entry: "functions/authorizer/token.ts", access: { table: "read" } } as const;

export interface Route {
  method: HttpMethod;
  path: string;
  contract: RouteContract;
  fn: HttpFunctionDefinition;
}

export const ROUTES: Route[] = HTTP_FUNCTIONS.flatMap((fn) => fn.routes.map((contract) => ({ method: contract.method, path: contract.path, contract, fn })));
