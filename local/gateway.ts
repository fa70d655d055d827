import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type {
  APIGatewayAuthorizerResult,
  APIGatewayProxyEvent,
  APIGatewayProxyResult,
  APIGatewayTokenAuthorizerEvent,
  Context,
} from "aws-lambda";
import { errorEnvelope, JSON_CONTENT_TYPE } from "../functions/shared/api-errors.ts";
import { GATEWAY_ERRORS, type GatewayError, MAX_REQUEST_BODY_BYTES } from "../functions/shared/gateway-errors.ts";
import { AUTHORIZER, type HttpFunctionDefinition, type Route, ROUTES } from "../lib/routes.ts";
import { lambdaContext } from "./lambda-context.ts";
import { TokenBuckets } from "./rate-limiter.ts";

type ProxyHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;
type TokenAuthorizer = (event: APIGatewayTokenAuthorizerEvent, context: Context) => Promise<APIGatewayAuthorizerResult>;

export interface GatewayOptions {
  port: number;
  /** Requests per second per organization, and the burst above it. */
  rateLimit: { ratePerSecond: number; burst: number };
}

export interface LocalGateway {
  url: string;
  close(): Promise<void>;
}

const STAGE = "local";
const API_GATEWAY_TIMEOUT_SECONDS = 29;

interface CompiledRoute {
  route: Route;
  pattern: RegExp;
  params: string[];
}

function compile(route: Route): CompiledRoute {
  const params: string[] = [];
  const source = route.path
    .split("/")
    .map((segment) => {
      const param = /^\{(\w+)\}$/.exec(segment);
      if (!param?.[1]) return segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
      params.push(param[1]);
      return "([^/]+)";
    })
    .join("/");
  return { route, pattern: new RegExp(`^${source}/?$`), params };
}

const COMPILED = ROUTES.map(compile);
const handlerCache = new Map<string, Promise<unknown>>();

/** Imports the real handler module of a route table entry, once. */
function loadHandler<T>(entry: string): Promise<T> {
  let loaded = handlerCache.get(entry);
  if (!loaded) {
    loaded = import(new URL(`../${entry}`, import.meta.url).href).then((module: { handler?: unknown }) => {
      if (typeof module.handler !== "function") throw new Error(`${entry} does not export a handler`);
      return module.handler;
    });
    handlerCache.set(entry, loaded);
  }
  return loaded as Promise<T>;
}

/**
 * A stand-in for API Gateway over the route table: it runs the real TOKEN authorizer and the real
 * handler modules with the events API Gateway would send, throttles per organization, and answers
 * its own errors (unknown route, 401, 413, 429) with the same envelope as the deployed gateway.
 */
export async function startGateway(options: GatewayOptions): Promise<LocalGateway> {
  const buckets = new TokenBuckets(options.rateLimit.ratePerSecond, options.rateLimit.burst);
  const server: Server = createServer((req, res) => {
    handle(req, res, buckets).catch((error: unknown) => {
      console.error("local gateway failure", error);
      sendGatewayError(res, GATEWAY_ERRORS.internal);
    });
  });
  server.keepAliveTimeout = 5000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, "127.0.0.1", () => resolve());
  });
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : options.port;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

async function handle(req: IncomingMessage, res: ServerResponse, buckets: TokenBuckets): Promise<void> {
  const url = new URL(req.url ?? "/", "http://local");
  const method = (req.method ?? "GET").toUpperCase();
  if (method === "GET" && url.pathname === "/health") {
    return sendJson(res, 200, { status: "healthy", timestamp: new Date().toISOString() });
  }
  const match = matchRoute(method, url.pathname);
  if (!match) return sendGatewayError(res, GATEWAY_ERRORS.routeNotFound);

  const authorizationToken = headerOf(req, "authorization");
  if (!authorizationToken) return sendGatewayError(res, GATEWAY_ERRORS.unauthorized);
  const methodArn = `arn:aws:execute-api:us-east-1:000000000000:local/${STAGE}/${method}${url.pathname}`;
  const authorizer = await loadHandler<TokenAuthorizer>(AUTHORIZER.entry);
  let policy: APIGatewayAuthorizerResult;
  try {
    policy = await authorizer({ type: "TOKEN", authorizationToken, methodArn }, lambdaContext(AUTHORIZER.id, 10));
  } catch (error) {
    if (error instanceof Error && error.message === "Unauthorized") return sendGatewayError(res, GATEWAY_ERRORS.unauthorized);
    throw error;
  }
  const allowed = policy.policyDocument.Statement.some((statement) => statement.Effect === "Allow");
  if (!allowed) return sendGatewayError(res, GATEWAY_ERRORS.forbidden);

  const organizationKey = String(policy.usageIdentifierKey ?? policy.principalId);
  const retryAfter = buckets.take(organizationKey);
  if (retryAfter > 0) return sendGatewayError(res, GATEWAY_ERRORS.throttled, { "retry-after": String(retryAfter) });

  const body = await readBody(req);
  if (body === null) return sendGatewayError(res, GATEWAY_ERRORS.payloadTooLarge);

  const event = proxyEvent(req, url, method, match, body, { ...policy.context, principalId: policy.principalId });
  const handler = await loadHandler<ProxyHandler>(match.route.fn.entry);
  const result = await invoke(handler, event, match.route.fn);
  if (!result) return sendGatewayError(res, GATEWAY_ERRORS.internal);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(result.headers ?? {})) headers[name] = String(value);
  res.writeHead(result.statusCode, headers);
  res.end(result.isBase64Encoded ? Buffer.from(result.body, "base64") : result.body);
}

/** Like API Gateway, a handler that throws or times out becomes a 5XX gateway response. */
async function invoke(handler: ProxyHandler, event: APIGatewayProxyEvent, fn: HttpFunctionDefinition) {
  const timeoutSeconds = Math.min(fn.timeoutSeconds ?? API_GATEWAY_TIMEOUT_SECONDS, API_GATEWAY_TIMEOUT_SECONDS);
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      handler(event, lambdaContext(fn.id, timeoutSeconds)),
      new Promise<null>((resolve) => {
        timer = setTimeout(() => resolve(null), timeoutSeconds * 1000);
      }),
    ]);
  } catch (error) {
    console.error(`handler ${fn.entry} threw`, error);
    return null;
  } finally {
    clearTimeout(timer);
  }
}

function matchRoute(method: string, pathname: string): { route: Route; pathParameters: Record<string, string> } | null {
  for (const compiled of COMPILED) {
    if (compiled.route.method !== method) continue;
    const found = compiled.pattern.exec(pathname);
    if (!found) continue;
    const pathParameters: Record<string, string> = {};
    compiled.params.forEach((name, index) => {
      pathParameters[name] = safeDecode(found[index + 1] ?? "");
    });
    return { route: compiled.route, pathParameters };
  }
  return null;
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

function headerOf(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** The body as text, or null when it exceeds API Gateway's 10 MB limit. */
async function readBody(req: IncomingMessage): Promise<string | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_REQUEST_BODY_BYTES) return null;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}

function proxyEvent(
  req: IncomingMessage,
  url: URL,
  method: string,
  match: { route: Route; pathParameters: Record<string, string> },
  body: string,
  authorizer: Record<string, unknown>,
): APIGatewayProxyEvent {
  const headers: Record<string, string> = {};
  const multiValueHeaders: Record<string, string[]> = {};
  for (let index = 0; index < req.rawHeaders.length; index += 2) {
    const name = req.rawHeaders[index] ?? "";
    const value = req.rawHeaders[index + 1] ?? "";
    headers[name] = value;
    (multiValueHeaders[name] ??= []).push(value);
  }
  const query: Record<string, string> = {};
  const multiQuery: Record<string, string[]> = {};
  for (const [key, value] of url.searchParams) {
    query[key] = value;
    (multiQuery[key] ??= []).push(value);
  }
  const hasQuery = Object.keys(query).length > 0;
  const requestId = randomUUID();
  return {
    resource: match.route.path,
    path: url.pathname,
    httpMethod: method,
    headers,
    multiValueHeaders,
    queryStringParameters: hasQuery ? query : null,
    multiValueQueryStringParameters: hasQuery ? multiQuery : null,
    pathParameters: Object.keys(match.pathParameters).length > 0 ? match.pathParameters : null,
    stageVariables: null,
    body: body === "" ? null : body,
    isBase64Encoded: false,
    requestContext: {
      accountId: "000000000000",
      apiId: "local",
      authorizer,
      httpMethod: method,
      identity: { sourceIp: req.socket.remoteAddress ?? "127.0.0.1" } as APIGatewayProxyEvent["requestContext"]["identity"],
      path: `/${STAGE}${url.pathname}`,
      protocol: "HTTP/1.1",
      requestId,
      requestTimeEpoch: Date.now(),
      resourceId: "local",
      resourcePath: match.route.path,
      stage: STAGE,
    },
  };
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "content-type": JSON_CONTENT_TYPE, ...headers });
  res.end(JSON.stringify(body));
}

function sendGatewayError(res: ServerResponse, error: GatewayError, headers: Record<string, string> = {}): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  sendJson(res, error.status, errorEnvelope(error.code, error.message), headers);
}
