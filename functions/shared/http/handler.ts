import { Readable } from "node:stream";
import middy from "@middy/core";
import { injectLambdaContext } from "@aws-lambda-powertools/logger/middleware";
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from "aws-lambda";
import { findIllFormedString, formatIssue } from "../platform/zod.ts";
import type * as z from "../platform/zod.ts";
import { errorEnvelope, JSON_CONTENT_TYPE } from "./envelope.ts";
import { invalidRequest, unprocessable } from "../domain/errors.ts";
import { errorReply, HttpError } from "./error-mapping.ts";
import { logger } from "../platform/logger.ts";
import { loadNamespaceForOrganization } from "../workflows/namespaces.ts";
import type { NamespaceRecord } from "../domain/namespace.ts";
import { TENANT_PATTERN } from "../domain/params.ts";
import type { Reply, ReplyFor, RouteContract, RouteRequest } from "./contract.ts";

export type { Reply };

export interface AuthContext {
  organizationId: string;
  keyId: string;
}

/**
 * A 200 with `data` in the success envelope (and `extra` beside it: a list's `pagination`). `T` is
 * taken from where the reply goes (the route's wire type), not from `data`, so an object literal
 * with a field the wire type lacks fails the type check.
 */
export function ok<T>(data: NoInfer<T>): Reply<T, 200> & { extra?: undefined };
export function ok<T, E extends Record<string, unknown>>(data: NoInfer<T>, extra: E): Reply<T, 200> & { extra: E };
export function ok(data: unknown, extra?: Record<string, unknown>): Reply {
  return { status: 200, data, extra };
}

export const created = <T>(data: NoInfer<T>): Reply<T, 201> & { extra?: undefined } => ({ status: 201, data });

type Out<S> = S extends z.ZodMiniType ? z.output<S> : undefined;
type PartOf<R, K extends "path" | "query" | "body"> = R extends { [P in K]: infer S } ? Out<S> : undefined;

export interface HttpRequest<P, Q, B> {
  path: P;
  query: Q;
  body: B;
  auth: AuthContext;
  tenantId: string | null;
  namespace: NamespaceRecord;
  event: APIGatewayProxyEvent;
  context: Context;
}

/**
 * The one middy stack every HTTP handler is built with, from its route's contract: the request it
 * validates, and the reply the contract's response allows (the wire type of its component, the
 * status; checked by the compiler only, nothing at run time). Validation runs in a fixed order, so
 * the same bad request always gets the same error: path (400), tenant header (400), namespace
 * (404/403/409), body JSON (400), query (422), body schema (422); a string that is not well-formed
 * UTF-16 fails its part like a schema failure, naming the field. Every failure, expected or not,
 * leaves as the error envelope.
 */
export function httpHandler<C extends RouteContract>(
  contract: C,
  fn: (request: HttpRequest<PartOf<C["request"], "path">, PartOf<C["request"], "query">, PartOf<C["request"], "body">>) => Promise<ReplyFor<C["response"]>>,
) {
  const spec: RouteRequest = contract.request;
  const core = async (event: APIGatewayProxyEvent, context: Context): Promise<APIGatewayProxyResult> => {
    const auth = spec.public ? { organizationId: "", keyId: "" } : readAuthContext(event);
    const path = spec.path ? parseWith(spec.path, event.pathParameters ?? {}, "bad_request") : undefined;
    const tenantId = spec.tenant ? readTenant(event) : null;
    const namespace = spec.namespace
      ? await loadNamespaceForOrganization(auth.organizationId, String((event.pathParameters ?? {}).namespaceId), spec.namespace)
      : (undefined as unknown as NamespaceRecord);
    const rawBody = spec.body ? (spec.bodyFormat === "form" ? readFormBody(event) : readJsonBody(event)) : undefined;
    const query = spec.query ? parseWith(spec.query, event.queryStringParameters ?? {}, "unprocessable_entity") : undefined;
    const body = spec.body ? parseWith(spec.body, rawBody, "unprocessable_entity") : undefined;
    const reply: Reply = await fn({
      path: path as PartOf<C["request"], "path">,
      query: query as PartOf<C["request"], "query">,
      body: body as PartOf<C["request"], "body">,
      auth,
      tenantId,
      namespace,
      event,
      context,
    });
    return {
      statusCode: reply.status,
      // An empty raw body (MCP's 202 to a notification) has no type.
      headers: { ...(reply.raw === "" ? {} : { "content-type": JSON_CONTENT_TYPE }), "cache-control": "no-store", ...reply.headers },
      body: reply.stream && spec.stream ? (Readable.from(reply.stream) as unknown as string) : (reply.raw ?? JSON.stringify({ success: true, data: reply.data, ...reply.extra })),
    };
  };
  const handler = middy(core, { streamifyResponse: spec.stream === true }).use(injectLambdaContext(logger, { resetKeys: true })).use(errorEnvelopeMiddleware());
  // Which contract it was built from: a test checks it is one its route table row lists.
  return Object.assign(handler, { contract: contract as RouteContract });
}

/** Maps anything a handler throws to the envelope; unexpected errors are logged and hidden. */
function errorEnvelopeMiddleware(): middy.MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult> {
  return {
    onError: async (request) => {
      const reply = errorReply(request.error);
      request.response = {
        statusCode: reply.status,
        headers: { "content-type": JSON_CONTENT_TYPE, "cache-control": "no-store", ...reply.headers },
        body: JSON.stringify(errorEnvelope(reply.code, reply.message)),
      };
    },
  };
}

function readAuthContext(event: APIGatewayProxyEvent): AuthContext {
  const authorizer = event.requestContext?.authorizer ?? {};
  const organizationId = authorizer.organizationId;
  if (typeof organizationId !== "string" || organizationId === "") {
    // The authorizer always supplies it; reaching here means the route was exposed without it.
    throw new HttpError("unauthorized", "Missing or invalid API key.");
  }
  return { organizationId, keyId: String(authorizer.keyId ?? "") };
}

export function headerValue(event: APIGatewayProxyEvent, name: string): string | undefined {
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(event.headers ?? {})) {
    if (key.toLowerCase() === wanted && value !== undefined) return value;
  }
  return undefined;
}

function readTenant(event: APIGatewayProxyEvent): string | null {
  const value = headerValue(event, "x-tenant-id");
  if (value === undefined) return null;
  if (!TENANT_PATTERN.test(value)) {
    throw invalidRequest("Invalid x-tenant-id header: it must be 1 to 64 letters or digits.");
  }
  return value;
}

function bodyText(event: APIGatewayProxyEvent): string {
  if (event.body === null || event.body === undefined) return "";
  return event.isBase64Encoded ? Buffer.from(event.body, "base64").toString("utf8") : event.body;
}

/** An HTML form's fields; a field given twice keeps its first value, as a form never sends one twice. */
function readFormBody(event: APIGatewayProxyEvent): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const [name, value] of new URLSearchParams(bodyText(event))) if (!Object.hasOwn(fields, name)) fields[name] = value;
  return fields;
}

function readJsonBody(event: APIGatewayProxyEvent): unknown {
  const text = bodyText(event);
  if (text.trim() === "") return {};
  try {
    return JSON.parse(text);
  } catch {
    throw invalidRequest("The request body is not valid JSON.");
  }
}

/**
 * Every request string (path, query, body) passes one check before its schema: well-formed UTF-16.
 * Schemas then never see a string that an S3 key, a URL, a header or a stored record cannot carry.
 */
function parseWith(schema: z.ZodMiniType, input: unknown, code: "bad_request" | "unprocessable_entity"): unknown {
  const fail = (message: string) => (code === "bad_request" ? invalidRequest(message) : unprocessable(message));
  const illFormed = findIllFormedString(input);
  if (illFormed) throw fail(formatIssue(illFormed));
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  throw fail(formatIssue(result.error.issues[0]));
}

