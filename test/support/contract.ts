import { readFileSync } from "node:fs";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { OPENAPI_FILE } from "../../lib/openapi/build.ts";
import type { Exchange } from "../../local/gateway.ts";

type Json = Record<string, any>;

// ajv-formats ships CommonJS typings for an ES default export.
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

const ERROR_SCHEMA: Json = { $ref: "#/components/schemas/Error" };

interface MatchedOperation {
  operation: Json;
  pathTemplate: string;
  pathParameters: Record<string, string>;
}

/**
 * Checks exchanges through the local gateway against the committed OpenAPI document: the status is
 * one the operation documents, the body matches that status's schema, and a request the service
 * accepted (2xx) is one the document allows. Returns what disagrees, one line each.
 */
export class ContractChecker {
  private readonly ajv: Ajv2020;
  private readonly validators = new Map<Json, ValidateFunction>();
  private readonly routes: { method: string; segments: string[]; template: string; operation: Json }[] = [];

  constructor(readonly document: Json = JSON.parse(readFileSync(OPENAPI_FILE, "utf8")) as Json) {
    this.ajv = addFormats(new Ajv2020({ strict: false, allErrors: false }));
    this.ajv.addSchema({ $id: "openapi", components: document.components }, "openapi");
    for (const [template, item] of Object.entries(document.paths as Json)) {
      for (const [method, operation] of Object.entries(item as Json)) {
        this.routes.push({ method: method.toUpperCase(), segments: template.split("/"), template, operation: operation as Json });
      }
    }
  }

  check(exchange: Exchange): string[] {
    const [rawPath, rawQuery = ""] = exchange.url.split("?", 2) as [string, string?];
    const label = `${exchange.method} ${rawPath} → ${exchange.status}`;
    const problems: string[] = [];
    // The local gateway's health check is not part of the API (nothing deployed answers it).
    if (rawPath === "/health") return [];
    const body = this.parseBody(exchange);
    const matched = this.match(exchange.method, rawPath);
    if (!matched) {
      // No operation: the gateway's own refusal, in the error envelope.
      if (![400, 404, 413].includes(exchange.status)) problems.push(`${label}: no operation in the document has this path and method`);
      problems.push(...this.validate(ERROR_SCHEMA, body, `${label}: response body`));
      return problems;
    }
    const { operation } = matched;
    const response = operation.responses?.[String(exchange.status)];
    if (!response) {
      problems.push(`${label}: status ${exchange.status} is not documented for ${operation.operationId} (documented: ${Object.keys(operation.responses).join(", ")})`);
      return problems;
    }
    // A response documented without content (MCP's 202) must come without a body.
    if (!response.content) {
      if (exchange.responseBody !== "") problems.push(`${label}: a body came with a response documented without one`);
      return problems;
    }
    const contentType = String(exchange.responseHeaders["content-type"] ?? "").split(";")[0]!.trim();
    const content = response.content?.[contentType];
    if (!content) {
      problems.push(`${label}: content type ${contentType || "(none)"} is not documented for ${operation.operationId} ${exchange.status}`);
    } else if (contentType === "application/json") {
      problems.push(...this.validate(content.schema, body, `${label}: response body of ${operation.operationId}`));
    }
    if (exchange.status < 300) problems.push(...this.checkRequest(exchange, matched, rawQuery, label));
    return problems;
  }

  private checkRequest(exchange: Exchange, matched: MatchedOperation, rawQuery: string, label: string): string[] {
    const { operation, pathParameters } = matched;
    const problems: string[] = [];
    const query = new URLSearchParams(rawQuery);
    const parameters = (operation.parameters ?? []) as Json[];
    for (const parameter of parameters) {
      const value =
        parameter.in === "path"
          ? pathParameters[parameter.name]
          : parameter.in === "query"
            ? (query.get(parameter.name) ?? undefined)
            : (exchange.requestHeaders[String(parameter.name).toLowerCase()] as string | undefined);
      if (value === undefined) {
        if (parameter.required) problems.push(`${label}: accepted without the required ${parameter.in} parameter ${parameter.name}`);
        continue;
      }
      problems.push(...this.validate(parameter.schema, value, `${label}: accepted ${parameter.in} parameter ${parameter.name}`));
    }
    const known = new Set(parameters.filter((parameter) => parameter.in === "query").map((parameter) => parameter.name));
    for (const name of query.keys()) if (!known.has(name)) problems.push(`${label}: accepted the undocumented query parameter ${name}`);
    const bodySchema = operation.requestBody?.content?.["application/json"]?.schema;
    if (bodySchema) {
      let requestBody: unknown = {};
      try {
        if (exchange.requestBody.trim() !== "") requestBody = JSON.parse(exchange.requestBody);
      } catch {
        problems.push(`${label}: accepted a body that is not JSON`);
      }
      problems.push(...this.validate(bodySchema, requestBody, `${label}: accepted request body of ${operation.operationId}`));
    }
    return problems;
  }

  private match(method: string, rawPath: string): MatchedOperation | null {
    // API Gateway routes `/resource/` as `/resource`.
    const segments = (rawPath.length > 1 && rawPath.endsWith("/") ? rawPath.slice(0, -1) : rawPath).split("/");
    for (const route of this.routes) {
      if (route.method !== method || route.segments.length !== segments.length) continue;
      const pathParameters: Record<string, string> = {};
      const fits = route.segments.every((segment, index) => {
        const actual = segments[index]!;
        if (segment.startsWith("{") && segment.endsWith("}")) {
          if (actual === "") return false;
          pathParameters[segment.slice(1, -1)] = safeDecode(actual);
          return true;
        }
        return segment === actual;
      });
      if (fits) return { operation: route.operation, pathTemplate: route.template, pathParameters };
    }
    return null;
  }

  private parseBody(exchange: Exchange): unknown {
    try {
      return JSON.parse(exchange.responseBody);
    } catch {
      return exchange.responseBody;
    }
  }

  /** Local `#/components/...` references point into the document registered as `openapi`. */
  private resolved(schema: Json): Json {
    return JSON.parse(JSON.stringify(schema).replace(/"#\/components\//g, '"openapi#/components/')) as Json;
  }

  /** Compiled once per schema object of the document (they keep their identity across exchanges). */
  private validate(schema: Json, value: unknown, label: string): string[] {
    let validator = this.validators.get(schema);
    if (!validator) {
      validator = this.ajv.compile(this.resolved(schema));
      this.validators.set(schema, validator);
    }
    if (validator(value)) return [];
    const [error] = validator.errors ?? [];
    return [`${label}: ${error?.instancePath || "(root)"} ${error?.message ?? "is invalid"} (${JSON.stringify(error?.params ?? {})})`];
  }
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
