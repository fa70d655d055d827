import type * as z from "../platform/zod.ts";
import type { NamespaceAccess } from "../workflows/namespaces.ts";
import type { ComponentName, Pagination, Wire } from "../domain/wire/schemas.ts";

/**
 * A route's contract: everything the API promises about one method and path, as data. The handler
 * is built from it (httpHandler validates with its request schemas and types the reply by its
 * response), the route table (lib/routes.ts) lists it, and the OpenAPI document (lib/openapi/) is
 * built from it without loading a handler. A function's contracts live beside its handler, in
 * functions/http/<feature>/<name>.route.ts, and load only schemas (types aside): a per-feature
 * module would make every handler load its siblings' schema modules, since esbuild keeps a loaded
 * module's top-level schema construction.
 */
export interface RouteContract {
  operationId: string;
  method: HttpMethod;
  path: string;
  summary: string;
  tag: OpenApiTag;
  description?: string;
  /** 409 besides the "namespace is being deleted" that every route on an active namespace can answer. */
  conflicts?: string;
  /** Response headers of the success response, with what they mean. */
  successHeaders?: Record<string, { description: string; schema: Record<string, unknown> }>;
  /** Further non-error answers, without a body (MCP's 202 to a notification). */
  otherResponses?: Record<string, string>;
  /** What the handler reads and validates; the methods of one function share it. */
  request: RouteRequest;
  response: RouteResponse;
}

export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/** The document's tags, in the order it lists them. */
export const OPENAPI_TAGS = ["Namespaces", "Hosting", "Uploads", "Ingest jobs", "Documents", "Search", "Chat", "MCP", "Hosted pages", "Contract"] as const;
export type OpenApiTag = (typeof OPENAPI_TAGS)[number];

type Schema = z.ZodMiniType;

export interface RouteRequest {
  /** Path parameters; a failure is a 400 (a malformed id is a bad request, not a bad document). */
  path?: Schema;
  /** Query string; a failure is a 422 naming the parameter. */
  query?: Schema;
  /** Body; invalid JSON is a 400, a schema failure a 422 naming the field. */
  body?: Schema;
  /** How the body is encoded: JSON (the API), or an HTML form's `application/x-www-form-urlencoded`. */
  bodyFormat?: "json" | "form";
  /** Honour `x-tenant-id`. Routes that do not scope by tenant ignore the header. */
  tenant?: boolean;
  /**
   * Resolve `{namespaceId}` for the caller's organization before anything else is validated:
   * `active` refuses a namespace that is being deleted (409), `any` accepts it.
   */
  namespace?: NamespaceAccess;
  /** Served without the authorizer or a usage key (the docs, hosted pages): no organization is known. */
  public?: boolean;
  /**
   * Lambda response streaming (the route's integration streams): the reply may carry a `stream`,
   * written as it is produced. Errors before it starts are the usual envelope.
   */
  stream?: boolean;
}

export type RouteResponse =
  | {
      status: 200 | 201;
      /** A component of domain/wire/schemas.ts; `list` wraps it in an array. */
      data: ComponentName;
      list?: boolean;
      /** The list carries a `pagination` object next to `data`. */
      paginated?: boolean;
      /** Also answered as the AI SDK's UI message stream (`text/event-stream`), when the request asks for a stream. */
      eventStream?: boolean;
    }
  | { status: 200 | 302 | 303 | 405; raw: "application/json" | "text/html" | "text/event-stream" | "text/plain" };

/** What a handler answers. `data` goes into the success envelope unless the reply is `raw` or a `stream`. */
export interface Reply<T = unknown, S extends number = number> {
  status: S;
  data: T;
  extra?: Record<string, unknown>;
  headers?: Record<string, string>;
  /** A body sent as is instead of the success envelope (the OpenAPI document, the reference page); `headers` name its type. */
  raw?: string;
  /** A body written as it is produced (streaming routes only); `headers` name its type. */
  stream?: AsyncIterable<string>;
}

/** A reply outside the success envelope: a raw body, a stream, or no body (MCP's 202). */
export type RawReply = Reply<null> & ({ raw: string } | { stream: AsyncIterable<string> });

type DataOf<R> = R extends { data: infer N extends ComponentName } ? (R extends { list: true } ? Wire<N>[] : Wire<N>) : never;

/**
 * The replies a route's contract allows: the component's wire type (an array with `list`, with
 * `pagination` beside it with `paginated`) under the contract's status, or a stream where the
 * contract also answers one; a raw route any raw reply.
 */
export type ReplyFor<R extends RouteResponse> = R extends { raw: string }
  ? RawReply
  :
      | (Reply<DataOf<R>, R["status"]> & (R extends { paginated: true } ? { extra: { pagination: Pagination } } : { extra?: undefined }))
      | (R extends { eventStream: true } ? RawReply : never);
