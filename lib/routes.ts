/**
 * The route table: which function serves which method and path, and what each function may touch.
 * Pure data, read both by the CDK stack and by the local gateway, so the two cannot drift.
 */
export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

import type { QueueName } from "../functions/shared/queue/names.ts";
import type { OwnedItem } from "../functions/shared/db/dynamo/keys.ts";
import type { VectorOperation } from "../functions/shared/vector-store/registry.ts";

export type { QueueName };

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

export interface HttpFunctionDefinition {
  /** Construct id of the function. */
  id: string;
  /** Module path from the project root; it exports `handler`. */
  entry: string;
  routes: { method: HttpMethod; path: string }[];
  access: FunctionAccess;
  /** Served without the authorizer or a usage key: the OpenAPI document and its reference page. */
  public?: boolean;
  memoryMb?: number;
  timeoutSeconds?: number;
  /**
   * The integration streams the function's response (Lambda response streaming): the handler is
   * built with `stream: true`, and the 29-second integration limit gives way to the function's timeout.
   */
  streams?: boolean;
}

const NAMESPACE = "/v1/namespace/{namespaceId}";
/** A long answer from a slow model; streamed integrations may run past API Gateway's 29 seconds. */
const CHAT_TIMEOUT_SECONDS = 120;

export const HTTP_FUNCTIONS: HttpFunctionDefinition[] = [
  {
    id: "ListNamespaces",
    entry: "functions/http/namespaces/list.ts",
    routes: [{ method: "GET", path: "/v1/namespace" }],
    access: { table: "read" },
  },
  {
    id: "CreateNamespace",
    entry: "functions/http/namespaces/create.ts",
    routes: [{ method: "POST", path: "/v1/namespace" }],
    access: { table: "readWrite" },
  },
  {
    id: "GetNamespace",
    entry: "functions/http/namespaces/get.ts",
    routes: [{ method: "GET", path: NAMESPACE }],
    access: { table: "read" },
  },
  {
    id: "UpdateNamespace",
    entry: "functions/http/namespaces/update.ts",
    routes: [
      { method: "PATCH", path: NAMESPACE },
      { method: "PUT", path: NAMESPACE },
    ],
    access: { table: "readWrite" },
  },
  {
    id: "DeleteNamespace",
    entry: "functions/http/namespaces/delete.ts",
    routes: [{ method: "DELETE", path: NAMESPACE }],
    access: { table: "readWrite", queues: ["delete"] },
  },
  {
    id: "GetHosting",
    entry: "functions/http/hosting/get.ts",
    routes: [{ method: "GET", path: `${NAMESPACE}/hosting` }],
    access: { table: "read" },
  },
  {
    id: "EnableHosting",
    entry: "functions/http/hosting/enable.ts",
    routes: [{ method: "POST", path: `${NAMESPACE}/hosting` }],
    access: { table: "readWrite" },
  },
  {
    id: "UpdateHosting",
    entry: "functions/http/hosting/update.ts",
    routes: [
      { method: "PATCH", path: `${NAMESPACE}/hosting` },
      { method: "PUT", path: `${NAMESPACE}/hosting` },
    ],
    access: { table: "readWrite", choosesChatModel: true },
  },
  {
    id: "DeleteHosting",
    entry: "functions/http/hosting/delete.ts",
    routes: [{ method: "DELETE", path: `${NAMESPACE}/hosting` }],
    access: { table: "readWrite" },
  },
  {
    id: "CreateUploadUrl",
    entry: "functions/http/uploads/create.ts",
    routes: [{ method: "POST", path: `${NAMESPACE}/uploads` }],
    access: { table: "read", bucket: "put" },
  },
  {
    id: "CreateUploadUrls",
    entry: "functions/http/uploads/create-batch.ts",
    routes: [{ method: "POST", path: `${NAMESPACE}/uploads/batch` }],
    access: { table: "read", bucket: "put" },
  },
  {
    id: "CreateIngestJob",
    entry: "functions/http/ingest-jobs/create.ts",
    routes: [{ method: "POST", path: `${NAMESPACE}/ingest-jobs` }],
    access: { table: "readWrite", bucket: "readWrite", queues: ["ingest"], vectors: ["count"] },
  },
  {
    id: "ListIngestJobs",
    entry: "functions/http/ingest-jobs/list.ts",
    routes: [{ method: "GET", path: `${NAMESPACE}/ingest-jobs` }],
    // Writes only the cursor-signing secret, once, on first use.
    access: { table: "readWrite", bucket: "read" },
  },
  {
    id: "GetIngestJob",
    entry: "functions/http/ingest-jobs/get.ts",
    routes: [{ method: "GET", path: `${NAMESPACE}/ingest-jobs/{jobId}` }],
    access: { table: "read", bucket: "read" },
  },
  {
    id: "DeleteIngestJob",
    entry: "functions/http/ingest-jobs/delete.ts",
    routes: [{ method: "DELETE", path: `${NAMESPACE}/ingest-jobs/{jobId}` }],
    access: { table: "readWrite", bucket: "read", queues: ["delete"] },
  },
  {
    id: "ReingestJob",
    entry: "functions/http/ingest-jobs/re-ingest.ts",
    routes: [{ method: "POST", path: `${NAMESPACE}/ingest-jobs/{jobId}/re-ingest` }],
    access: { table: "readWrite", queues: ["ingest"] },
  },
  {
    id: "DeleteDocument",
    entry: "functions/http/documents/delete.ts",
    routes: [{ method: "DELETE", path: `${NAMESPACE}/documents/{documentId}` }],
    access: { table: "readWrite", bucket: "read", queues: ["delete"] },
  },
  {
    id: "ListDocuments",
    entry: "functions/http/documents/list.ts",
    routes: [{ method: "GET", path: `${NAMESPACE}/documents` }],
    access: { table: "readWrite", bucket: "read" },
  },
  {
    id: "GetDocument",
    entry: "functions/http/documents/get.ts",
    routes: [{ method: "GET", path: `${NAMESPACE}/documents/{documentId}` }],
    access: { table: "read", bucket: "read" },
  },
  {
    id: "CreateFileDownloadUrl",
    entry: "functions/http/documents/file-download-url.ts",
    routes: [{ method: "POST", path: `${NAMESPACE}/documents/{documentId}/file-download-url` }],
    access: { table: "read", bucket: "read" },
  },
  {
    id: "CreateChunksDownloadUrl",
    entry: "functions/http/documents/chunks-download-url.ts",
    routes: [{ method: "POST", path: `${NAMESPACE}/documents/{documentId}/chunks-download-url` }],
    access: { table: "read", bucket: "read" },
  },
  {
    id: "Search",
    entry: "functions/http/search/search.ts",
    routes: [{ method: "POST", path: `${NAMESPACE}/search` }],
    access: { table: "read", bucket: "read", vectors: ["query"], embeds: true, reranks: true },
  },
  {
    id: "Chat",
    entry: "functions/http/chat/chat.ts",
    routes: [{ method: "POST", path: `${NAMESPACE}/chat` }],
    // Reads the hosting for the namespace's model and prompt.
    access: { table: "read", bucket: "read", vectors: ["query"], embeds: true, reranks: true, chats: true },
    streams: true,
    timeoutSeconds: CHAT_TIMEOUT_SECONDS,
  },
  {
    id: "Mcp",
    entry: "functions/http/mcp/mcp.ts",
    routes: [
      { method: "POST", path: "/v1/mcp" },
      { method: "GET", path: "/v1/mcp" },
    ],
    // Its tools search (and expand), list and read documents, and ingest (as the routes that do each).
    access: { table: "readWrite", bucket: "readWrite", queues: ["ingest"], vectors: ["query", "count"], embeds: true, reranks: true },
    timeoutSeconds: 29,
  },
  {
    id: "OpenApiDocument",
    entry: "functions/http/docs/openapi.ts",
    routes: [{ method: "GET", path: "/openapi.json" }],
    access: {},
    public: true,
  },
  {
    id: "ApiReference",
    entry: "functions/http/docs/reference.ts",
    routes: [{ method: "GET", path: "/docs" }],
    access: {},
    public: true,
  },
  {
    id: "HostedPage",
    entry: "functions/http/hosted/page.ts",
    routes: [{ method: "GET", path: "/hosted/{slug}" }],
    // Creates the session-signing secret on first use.
    access: { table: "readWrite", writesOnly: ["serviceSecret"] },
    public: true,
  },
  {
    id: "HostedSignIn",
    entry: "functions/http/hosted/sign-in.ts",
    routes: [{ method: "POST", path: "/hosted/{slug}/sign-in" }],
    // Counts the visitor's requests and queues every one for the mail worker (functions/workers/mail.ts).
    access: { table: "readWrite", writesOnly: ["rateWindow"], queues: ["mail"] },
    public: true,
  },
  {
    id: "HostedSignInLink",
    entry: "functions/http/hosted/sign-in-link.ts",
    routes: [{ method: "GET", path: "/hosted/{slug}/session" }],
    access: { table: "read" },
    public: true,
  },
  {
    id: "HostedSession",
    entry: "functions/http/hosted/session.ts",
    routes: [{ method: "POST", path: "/hosted/{slug}/session" }],
    // Uses up the sign-in link (and its pending mark); signs with the session secret, created on first use.
    access: { table: "readWrite", writesOnly: ["signIn", "serviceSecret"] },
    public: true,
  },
  {
    id: "HostedSearch",
    entry: "functions/http/hosted/search.ts",
    routes: [{ method: "POST", path: "/hosted/{slug}/search" }],
    // Writes only its rate-limit counters, and the session secret on first use.
    access: { table: "readWrite", writesOnly: ["rateWindow", "serviceSecret"], bucket: "read", vectors: ["query"], embeds: true, reranks: true },
    public: true,
  },
  {
    id: "HostedDocumentFile",
    entry: "functions/http/hosted/document-file.ts",
    routes: [{ method: "GET", path: "/hosted/{slug}/documents/{documentId}/file" }],
    // Writes only its rate-limit counters (and the session key, as the search tab); reads the object's head and signs a GET of it.
    access: { table: "readWrite", writesOnly: ["rateWindow", "serviceSecret"], bucket: "read" },
    public: true,
  },
  {
    id: "HostedMcp",
    entry: "functions/http/hosted/mcp.ts",
    routes: [
      { method: "POST", path: "/hosted/{slug}/mcp" },
      { method: "GET", path: "/hosted/{slug}/mcp" },
    ],
    // Writes only its rate-limit counters (and the session key, as the search tab).
    access: { table: "readWrite", writesOnly: ["rateWindow", "serviceSecret"], bucket: "read", vectors: ["query"], embeds: true, reranks: true },
    public: true,
  },
  {
    id: "HostedChat",
    entry: "functions/http/hosted/chat.ts",
    routes: [{ method: "POST", path: "/hosted/{slug}/chat" }],
    // Writes only its rate-limit counters, and the session secret on first use.
    access: { table: "readWrite", writesOnly: ["rateWindow", "serviceSecret"], bucket: "read", vectors: ["query"], embeds: true, reranks: true, chats: true },
    public: true,
    streams: true,
    timeoutSeconds: CHAT_TIMEOUT_SECONDS,
  },
];

export const AUTHORIZER = { id: "Authorizer", entry: "functions/authorizer/token.ts", access: { table: "read" } } as const;

export interface Route {
  method: HttpMethod;
  path: string;
  fn: HttpFunctionDefinition;
}

export const ROUTES: Route[] = HTTP_FUNCTIONS.flatMap((fn) => fn.routes.map((route) => ({ ...route, fn })));
