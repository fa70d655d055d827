import { readFileSync } from "node:fs";
import * as z from "../../functions/shared/platform/zod.ts";
import { ERROR_STATUS, type ErrorCode } from "../../functions/shared/http/envelope.ts";
import { OPENAPI_TAGS, type RouteContract, type RouteRequest } from "../../functions/shared/http/contract.ts";
import { errorEnvelopeWire } from "../../functions/shared/http/envelope-schema.ts";
import { paginationWire, WIRE_COMPONENTS } from "../../functions/shared/domain/wire/schemas.ts";
import { ROUTES, type Route } from "../routes.ts";

/**
 * The OpenAPI 3.1 document of the API, built from the route table and its contracts alone
 * (functions/http/<feature>/<name>.route.ts: request schemas, the response component, what each route
 * says of itself) and the response schemas of domain/wire/schemas.ts; no handler is loaded.
 * `npm run openapi` writes it to functions/http/docs/openapi.json, which the docs functions serve;
 * a test fails when that file and this build differ.
 */

export type JsonSchema = Record<string, unknown>;
export type OpenApiDocument = Record<string, unknown> & {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, JsonSchema>; securitySchemes: Record<string, JsonSchema> };
};
interface Operation {
  operationId: string;
  responses: Record<string, { content?: Record<string, { schema: JsonSchema }> }>;
  [key: string]: unknown;
}

export const OPENAPI_FILE = new URL("../../functions/http/docs/openapi.json", import.meta.url);

const TENANT_HEADER = {
  name: "x-tenant-id",
  in: "header",
  required: false,
  description: "Tenant inside the namespace. Without it the request works on records that have no tenant.",
  schema: { type: "string", pattern: "^[A-Za-z0-9]{1,64}$" },
};

/** Path parameters that are ids: their description and pattern. A namespace may also be named by its slug. */
const ID_PARAMETERS: Record<string, { description: string; pattern: string }> = {
  namespaceId: { description: "the namespace's id (starts with ns_) or its slug", pattern: "^(ns_[A-Za-z0-9_-]+|[a-z0-9-]{1,64})$" },
  jobId: { description: "starts with job_", pattern: "^job_[A-Za-z0-9_-]+$" },
  documentId: { description: "starts with doc_", pattern: "^doc_[A-Za-z0-9_-]+$" },
};

const STATUS_MEANING: Record<number, string> = {
  400: "Malformed request: a bad path id, invalid JSON, a bad x-tenant-id header, an unknown route shape",
  401: "Missing or invalid API key",
  403: "The key may not use this resource (another organization's namespace)",
  404: "No such route, namespace, job or document",
  409: "Conflicts with the current state",
  413: "Request too large",
  422: "A field of the query or body is invalid (the message names it)",
  429: "Too many requests; retry after the Retry-After seconds",
  500: "Unexpected failure",
};

/** A zod schema as JSON Schema 2020-12 (OpenAPI 3.1's dialect): what a client sends (`input`) or receives (`output`). */
function jsonSchemaOf(schema: z.ZodMiniType, io: "input" | "output"): JsonSchema {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { target: "draft-2020-12", io, unrepresentable: "any" }) as JsonSchema;
  return rest;
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** The error statuses a route can answer, from what its handler validates and what the gateway adds. */
function errorStatuses(doc: RouteContract): number[] {
  const spec = doc.request;
  const isPublic = spec.public === true;
  // Public routes answer without a key (no 401); those that read a hosted page can find none (404),
  // refuse a protected one (403), and take a body (413, 422).
  if (isPublic && !spec.path) return [400, 429, 500];
  const statuses = new Set(isPublic ? [400, 403, 404, 429, 500] : [400, 401, 403, 404, 413, 429, 500]);
  if (isPublic && spec.body) statuses.add(413);
  if (spec.query || spec.body) statuses.add(422);
  if (doc.conflicts || spec.namespace === "active") statuses.add(409);
  return [...statuses].sort((a, b) => a - b);
}

function parameters(spec: RouteRequest): JsonSchema[] {
  const list: JsonSchema[] = [];
  for (const [where, schema] of [["path", spec.path], ["query", spec.query]] as const) {
    if (!schema) continue;
    const json = jsonSchemaOf(schema, "input") as { properties?: Record<string, JsonSchema>; required?: string[] };
    for (const [name, property] of Object.entries(json.properties ?? {})) {
      const id = ID_PARAMETERS[name];
      list.push({
        name,
        in: where,
        required: where === "path" || (json.required ?? []).includes(name),
        ...(id ? { description: id.description } : {}),
        schema: id ? { ...property, pattern: id.pattern } : property,
      });
    }
  }
  if (spec.tenant) list.push(TENANT_HEADER);
  return list;
}

function successResponse(doc: RouteContract): Operation["responses"][string] & { description: string } {
  const success = doc.response;
  if ("raw" in success) {
    return {
      description: doc.summary,
      ...(doc.successHeaders ? { headers: doc.successHeaders } : {}),
      content: { [success.raw]: { schema: success.raw === "application/json" ? { type: "object" } : { type: "string" } } },
    };
  }
  const data = success.list ? { type: "array", items: ref(success.data) } : ref(success.data);
  const envelope: JsonSchema = {
    type: "object",
    properties: { success: { const: true }, data, ...(success.paginated ? { pagination: ref("Pagination") } : {}) },
    required: ["success", "data", ...(success.paginated ? ["pagination"] : [])],
    additionalProperties: false,
  };
  const content = { "application/json": { schema: envelope }, ...(success.eventStream ? { "text/event-stream": { schema: { type: "string" } } } : {}) };
  return { description: doc.summary, ...(doc.successHeaders ? { headers: doc.successHeaders } : {}), content };
}

function operation(route: Route): Operation {
  const doc = route.contract;
  const spec = doc.request;
  const isPublic = route.fn.public === true;
  const responses: Operation["responses"] = { [String(doc.response.status)]: successResponse(doc) };
  for (const [status, description] of Object.entries(doc.otherResponses ?? {})) responses[status] = { description } as Operation["responses"][string];
  for (const status of errorStatuses(doc)) {
    const code = (Object.keys(ERROR_STATUS) as ErrorCode[]).find((candidate) => ERROR_STATUS[candidate] === status)!;
    const meaning = status === 409 && doc.conflicts ? `${STATUS_MEANING[409]}: ${doc.conflicts}${spec.namespace === "active" ? "; or the namespace is being deleted" : ""}` : STATUS_MEANING[status];
    responses[String(status)] = {
      description: `${meaning} (\`${code}\`)`,
      content: { "application/json": { schema: ref("Error") } },
    } as Operation["responses"][string];
  }
  const params = parameters(spec);
  return {
    operationId: doc.operationId,
    summary: doc.summary,
    ...(doc.description ? { description: doc.description } : {}),
    tags: [doc.tag],
    ...(isPublic ? { security: [] } : {}),
    ...(params.length > 0 ? { parameters: params } : {}),
    ...(spec.body
      ? { requestBody: { required: true, content: { [spec.bodyFormat === "form" ? "application/x-www-form-urlencoded" : "application/json"]: { schema: jsonSchemaOf(spec.body, "input") } } } }
      : {}),
    responses,
  };
}

export async function buildOpenApiDocument(): Promise<OpenApiDocument> {
  const packageJson = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string; description: string };
  const paths: OpenApiDocument["paths"] = {};
  for (const route of ROUTES) (paths[route.path] ??= {})[route.method.toLowerCase()] = operation(route);

  const schemas: Record<string, JsonSchema> = {};
  for (const [name, schema] of Object.entries(WIRE_COMPONENTS)) schemas[name] = jsonSchemaOf(schema, "output");
  schemas.Pagination = jsonSchemaOf(paginationWire, "output");
  schemas.Error = jsonSchemaOf(errorEnvelopeWire, "output");
  return {
    openapi: "3.1.0",
    info: {
      title: "knowledge-ingestion-service API",
      version: packageJson.version,
      description: `${packageJson.description} Every success body is \`{ "success": true, "data": ... }\`; every error body is the Error schema.`,
    },
    // Relative to where this document is served: the stage's base URL deployed, the gateway locally.
    servers: [{ url: ".", description: "the API that serves this document" }],
    security: [{ bearerAuth: [] }],
    tags: OPENAPI_TAGS.filter((tag) => ROUTES.some((route) => route.contract.tag === tag)).map((name) => ({ name })),
    paths,
    components: {
      schemas,
      securitySchemes: { bearerAuth: { type: "http", scheme: "bearer", description: "The organization's API key: `Authorization: Bearer <key>`." } },
    },
  };
}

export function serializeOpenApiDocument(document: OpenApiDocument): string {
  return `${JSON.stringify(document, null, 2)}\n`;
}
