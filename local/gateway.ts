import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse, STATUS_CODES } from "node:http";
import type { Duplex } from "node:stream";
import type {
  APIGatewayAuthorizerResult,
  APIGatewayProxyEvent,
  APIGatewayProxyResult,
  APIGatewayTokenAuthorizerEvent,
  Context,
} from "aws-lambda";
import { errorEnvelope, JSON_CONTENT_TYPE } from "../functions/shared/http/envelope.ts";
import { GATEWAY_ERRORS, type GatewayError } from "../functions/shared/http/gateway-responses.ts";
import { MAX_LAMBDA_EVENT_BYTES, MAX_REQUEST_BODY_BYTES } from "../functions/shared/platform/request-limits.ts";
import { AUTHORIZER, type HttpFunctionDefinition, type Route, ROUTES } from "../lib/routes.ts";
import { AUTHORIZER_CACHE_TTL_SECONDS, type MethodThrottle, PUBLIC_METHOD_THROTTLES } from "../lib/stage-settings.ts";
import { AuthorizerCache } from "./authorizer-cache.ts";
import { evaluatePolicy, executeApiArn } from "./authorizer-policy.ts";
import { invokeLocally } from "./lambda-context.ts";
import { installResponseStreaming, isStreamingHandler, responseStreamTo, type StreamingHandler } from "./response-streaming.ts";
import { TokenBuckets } from "./rate-limiter.ts";

type ProxyHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;
type TokenAuthorizer = (event: APIGatewayTokenAuthorizerEvent, context: Context) => Promise<APIGatewayAuthorizerResult>;

export interface GatewayOptions {
  port: number;
  /** Requests per second per organization, and the burst above it. */
  rateLimit: { ratePerSecond: number; burst: number };
  /**
   * The method throttles of the public routes, by function id, each shared by every caller as in
   * API Gateway; by default the dev stage's (lib/stage-settings.ts). A function left out is unthrottled.
   */
  publicMethodThrottles?: Readonly<Record<string, MethodThrottle>>;
  /** How long the authorizer's answer for a token is reused (0: not at all); by default the dev stage's. */
  authorizerCacheTtlSeconds?: number;
  /** Told of every request and the response it got (tests check each against the OpenAPI document). */
  onExchange?: (exchange: Exchange) => void;
  /** The clock the authorizer cache reads: tests move it past the TTL rather than wait it out. */
  now?: () => number;
}

export interface Exchange {
  method: string;
  /** The request target as sent: path and query, still percent-encoded. */
  url: string;
  requestHeaders: IncomingMessage["headers"];
  requestBody: string;
  status: number;
  responseHeaders: Record<string, unknown>;
  responseBody: string;
}

export interface LocalGateway {
  url: string;
  close(): Promise<void>;
}

/** Where the local API "is deployed": the parts of the method ARNs the authorizer sees. */
const API = { region: "us-east-1", account: "000000000000", apiId: "local", stage: "local" };
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
// Before any handler module is imported: a streaming handler marks itself at import, as in Lambda.
installResponseStreaming();
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

interface GatewayState {
  buckets: TokenBuckets;
  /** One bucket per public route (method and path), by the function that serves it. */
  publicBuckets: Map<string, TokenBuckets>;
  authorizerCache: AuthorizerCache;
  now: () => number;
  /**
   * The host of the gateway's own base URL, reported as the event's domainName. Never the request's
   * Host header: a client could forge it into the links the service mails (sign-in), as API Gateway
   * only ever reports its own domain.
   */
  domainName: string;
}

/**
 * A stand-in for API Gateway over the route table: it runs the real TOKEN authorizer and the real
 * handler modules with the events API Gateway would send, caches the authorizer's policy per token
 * and evaluates it against every request's method ARN, throttles per organization, refuses what
 * Lambda would refuse, and answers its own errors (unknown route, 400, 401, 403, 413, 429) with the
 * same envelope as the deployed gateway, including for requests Node's HTTP parser cannot read.
 */
export async function startGateway(options: GatewayOptions): Promise<LocalGateway> {
  const state: GatewayState = {
    buckets: new TokenBuckets(options.rateLimit.ratePerSecond, options.rateLimit.burst),
    publicBuckets: new Map(
      Object.entries(options.publicMethodThrottles ?? PUBLIC_METHOD_THROTTLES.dev).map(([id, throttle]) => [id, new TokenBuckets(throttle.rateLimit, throttle.burstLimit)]),
    ),
    // The local stack behaves like the dev stage.
    authorizerCache: new AuthorizerCache(options.authorizerCacheTtlSeconds ?? AUTHORIZER_CACHE_TTL_SECONDS.dev),
    now: options.now ?? Date.now,
    domainName: "127.0.0.1",
  };
  const server: Server = createServer((req, res) => {
    if (options.onExchange) observe(req, res, options.onExchange);
    handle(req, res, state).catch((error: unknown) => {
      console.error("local gateway failure", error);
      sendGatewayError(res, GATEWAY_ERRORS.internal);
    });
  });
  server.on("clientError", answerUnparsedRequest);
  // No route takes CONNECT; without a listener Node would just drop the connection.
  server.on("connect", (_req: IncomingMessage, socket: Duplex) => socket.end(rawGatewayResponse(GATEWAY_ERRORS.routeNotFound)));
  server.keepAliveTimeout = 5000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, "127.0.0.1", () => resolve());
  });
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : options.port;
  state.domainName = `127.0.0.1:${port}`;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

async function handle(req: IncomingMessage, res: ServerResponse, state: GatewayState): Promise<void> {
  const target = requestTarget(req.url ?? "");
  if (!target) return sendGatewayError(res, GATEWAY_ERRORS.badRequest);
  const method = (req.method ?? "GET").toUpperCase();
  if (method === "GET" && target.path === "/health") {
    return sendJson(res, 200, { status: "healthy", timestamp: new Date().toISOString() });
  }
  if (hasDotSegment(target.path)) return sendGatewayError(res, GATEWAY_ERRORS.dotSegment);
  const match = matchRoute(method, target.path);
  if (!match) return sendGatewayError(res, GATEWAY_ERRORS.routeNotFound);
  if (match.route.fn.public) {
    const retryAfter = state.publicBuckets.get(match.route.fn.id)?.take(`${method} ${match.route.path}`) ?? 0;
    if (retryAfter > 0) return sendGatewayError(res, GATEWAY_ERRORS.throttled, { "retry-after": String(retryAfter) });
    return respond(res, await readBody(req), req, target, method, match, {}, state.domainName);
  }

  const authorizationToken = headerOf(req, "authorization");
  if (!authorizationToken) return sendGatewayError(res, GATEWAY_ERRORS.unauthorized);
  const methodArn = executeApiArn(API, method, target.path);
  let authorization: APIGatewayAuthorizerResult;
  try {
    authorization = await state.authorizerCache.resolve(authorizationToken, async () => {
      const authorizer = await loadHandler<TokenAuthorizer>(AUTHORIZER.entry);
      return invokeLocally(AUTHORIZER.id, 10, (context) => authorizer({ type: "TOKEN", authorizationToken, methodArn }, context));
    }, state.now);
  } catch (error) {
    if (error instanceof Error && error.message === "Unauthorized") return sendGatewayError(res, GATEWAY_ERRORS.unauthorized);
    throw error;
  }
  // A cached policy was written for the request that filled the cache; it must still cover this one.
  if (evaluatePolicy(authorization.policyDocument, methodArn) !== "allow") return sendGatewayError(res, GATEWAY_ERRORS.forbidden);

  const organizationKey = String(authorization.usageIdentifierKey ?? authorization.principalId);
  const retryAfter = state.buckets.take(organizationKey);
  if (retryAfter > 0) return sendGatewayError(res, GATEWAY_ERRORS.throttled, { "retry-after": String(retryAfter) });

  return respond(res, await readBody(req), req, target, method, match, { ...authorization.context, principalId: authorization.principalId }, state.domainName);
}

/** Invokes the route's handler with the proxy event API Gateway would send, and writes its answer. */
async function respond(
  res: ServerResponse,
  body: string | null,
  req: IncomingMessage,
  target: RequestTarget,
  method: string,
  match: { route: Route; pathParameters: Record<string, string> },
  authorizer: Record<string, unknown>,
  domainName: string,
): Promise<void> {
  if (body === null) return sendGatewayError(res, GATEWAY_ERRORS.payloadTooLarge);
  const event = proxyEvent(req, target, method, match, body, authorizer, domainName);
  // Lambda counts the event as API Gateway serializes it, not the body.
  if (Buffer.byteLength(JSON.stringify(event)) > MAX_LAMBDA_EVENT_BYTES) return sendGatewayError(res, GATEWAY_ERRORS.payloadTooLarge);
  const handler = await loadHandler<ProxyHandler | StreamingHandler>(match.route.fn.entry);
  // The integration decides, as in API Gateway; a handler that disagrees with it fails there too.
  if (isStreamingHandler(handler) !== (match.route.fn.streams === true)) {
    console.error(`${match.route.fn.entry} ${match.route.fn.streams ? "does not stream, but its route streams" : "streams, but its route is buffered"}`);
    return sendGatewayError(res, GATEWAY_ERRORS.internal);
  }
  if (isStreamingHandler(handler)) return respondStreaming(res, handler, event, match.route.fn);
  const result = await invoke(handler as ProxyHandler, event, match.route.fn);
  if (!result) return sendGatewayError(res, GATEWAY_ERRORS.internal);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(result.headers ?? {})) headers[name] = String(value);
  res.writeHead(result.statusCode, headers);
  res.end(result.isBase64Encoded ? Buffer.from(result.body, "base64") : result.body);
}

/**
 * A route whose integration streams (lib/routes.ts `streams`): the handler writes to a response
 * stream, and what it writes reaches the client as it is written. Like API Gateway's streamed
 * integrations, the 29-second limit does not apply; the function's own timeout does.
 */
async function respondStreaming(res: ServerResponse, handler: StreamingHandler, event: APIGatewayProxyEvent, fn: HttpFunctionDefinition): Promise<void> {
  const stream = responseStreamTo(res);
  // A client that goes away ends the invocation's stream, as Lambda does.
  res.on("close", () => {
    if (!res.writableFinished) stream.destroy();
  });
  let timer: NodeJS.Timeout | undefined;
  const timeoutSeconds = fn.timeoutSeconds ?? API_GATEWAY_TIMEOUT_SECONDS;
  try {
    const outcome = await Promise.race([
      invokeLocally(fn.id, timeoutSeconds, (context) => handler(event, stream, context)).then(() => "done" as const),
      new Promise<"timeout">((resolve) => {
        timer = setTimeout(() => resolve("timeout"), timeoutSeconds * 1000);
      }),
    ]);
    if (outcome === "timeout") throw new Error(`${fn.entry} timed out after ${timeoutSeconds} s`);
    if (!stream.writableFinished) await new Promise<void>((resolve) => stream.end(() => resolve()));
  } catch (error) {
    if (!res.destroyed) console.error(`handler ${fn.entry} threw`, error);
    // Once the answer has started, a failure can only cut it short.
    sendGatewayError(res, GATEWAY_ERRORS.internal);
  } finally {
    clearTimeout(timer);
  }
}

interface RequestTarget {
  /** As sent, still percent-encoded. */
  path: string;
  query: URLSearchParams;
}

/**
 * The path and query of an origin-form request target, taken as sent. Routing on a parsed URL
 * would resolve dot segments first (WHATWG URL turns `/documents/%2e%2e` into the namespace's own
 * path, and `\` into `/`), so a request could reach a route its path does not name.
 */
function requestTarget(raw: string): RequestTarget | null {
  if (!raw.startsWith("/")) return null;
  const queryStart = raw.indexOf("?");
  return queryStart === -1
    ? { path: raw, query: new URLSearchParams() }
    : { path: raw.slice(0, queryStart), query: new URLSearchParams(raw.slice(queryStart + 1)) };
}

/** A segment that is "." or ".." once percent-decoded (`%2e`, `%2E%2e`, ...). */
function hasDotSegment(path: string): boolean {
  return path.split("/").some((segment) => {
    const decoded = safeDecode(segment);
    return decoded === "." || decoded === "..";
  });
}

/** Like API Gateway, a handler that throws or times out becomes a 5XX gateway response. */
async function invoke(handler: ProxyHandler, event: APIGatewayProxyEvent, fn: HttpFunctionDefinition) {
  const timeoutSeconds = Math.min(fn.timeoutSeconds ?? API_GATEWAY_TIMEOUT_SECONDS, API_GATEWAY_TIMEOUT_SECONDS);
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      invokeLocally(fn.id, timeoutSeconds, (context) => handler(event, context)),
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
/** Request bodies as read, for the exchange observer. */
const requestBodies = new WeakMap<IncomingMessage, string>();

async function readBody(req: IncomingMessage): Promise<string | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_REQUEST_BODY_BYTES) return null;
    chunks.push(chunk as Buffer);
  }
  const body = Buffer.concat(chunks).toString("utf8");
  requestBodies.set(req, body);
  return body;
}

/** Records what the response writes, and reports the whole exchange once it is sent. */
function observe(req: IncomingMessage, res: ServerResponse, onExchange: (exchange: Exchange) => void): void {
  const chunks: Buffer[] = [];
  const keep = (chunk: unknown) => {
    if (typeof chunk === "string" || chunk instanceof Uint8Array) chunks.push(Buffer.from(chunk));
  };
  // Headers given to writeHead never reach getHeaders(); they are kept as they pass.
  const written: Record<string, unknown> = {};
  const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => ServerResponse;
  res.writeHead = ((...args: unknown[]) => {
    const headers = args.find((arg) => typeof arg === "object" && arg !== null);
    if (headers && !Array.isArray(headers)) for (const [name, value] of Object.entries(headers)) written[name.toLowerCase()] = value;
    return writeHead(...args);
  }) as ServerResponse["writeHead"];
  const write = res.write.bind(res) as (...args: unknown[]) => boolean;
  const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse;
  res.write = ((chunk: unknown, ...rest: unknown[]) => {
    keep(chunk);
    return write(chunk, ...rest);
  }) as ServerResponse["write"];
  res.end = ((chunk?: unknown, ...rest: unknown[]) => {
    keep(chunk);
    return end(chunk, ...rest);
  }) as ServerResponse["end"];
  res.on("finish", () =>
    onExchange({
      method: (req.method ?? "GET").toUpperCase(),
      url: req.url ?? "",
      requestHeaders: req.headers,
      requestBody: requestBodies.get(req) ?? "",
      status: res.statusCode,
      responseHeaders: { ...res.getHeaders(), ...written },
      responseBody: Buffer.concat(chunks).toString("utf8"),
    }),
  );
}

function proxyEvent(
  req: IncomingMessage,
  target: RequestTarget,
  method: string,
  match: { route: Route; pathParameters: Record<string, string> },
  body: string,
  authorizer: Record<string, unknown>,
  domainName: string,
): APIGatewayProxyEvent {
  // Null-prototype maps: a header or parameter named `__proto__` or `constructor` is a plain entry,
  // as in the JSON event API Gateway delivers, not a member every object inherits.
  const headers: Record<string, string> = Object.create(null);
  const multiValueHeaders: Record<string, string[]> = Object.create(null);
  for (let index = 0; index < req.rawHeaders.length; index += 2) {
    const name = req.rawHeaders[index] ?? "";
    const value = req.rawHeaders[index + 1] ?? "";
    headers[name] = value;
    (multiValueHeaders[name] ??= []).push(value);
  }
  const query: Record<string, string> = Object.create(null);
  const multiQuery: Record<string, string[]> = Object.create(null);
  for (const [key, value] of target.query) {
    query[key] = value;
    (multiQuery[key] ??= []).push(value);
  }
  const hasQuery = Object.keys(query).length > 0;
  const requestId = randomUUID();
  return {
    resource: match.route.path,
    path: target.path,
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
      accountId: API.account,
      apiId: API.apiId,
      authorizer,
      httpMethod: method,
      identity: { sourceIp: req.socket.remoteAddress ?? "127.0.0.1" } as APIGatewayProxyEvent["requestContext"]["identity"],
      // As API Gateway reports it: the path the client asked for (here, no stage prefix) on the API's own host.
      path: target.path,
      domainName,
      protocol: "HTTP/1.1",
      requestId,
      requestTimeEpoch: Date.now(),
      resourceId: "local",
      resourcePath: match.route.path,
      stage: API.stage,
    },
  };
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "content-type": JSON_CONTENT_TYPE, ...headers });
  res.end(JSON.stringify(body));
}

/**
 * Answers a request Node's HTTP parser refused before the gateway saw it, which Node would answer
 * with a bare status line (or not at all): an unknown method such as `FOO` gets what API Gateway
 * answers for a method no route has, a header section over Node's limit the 400 of headersTooLarge,
 * anything else malformed the plain 400.
 */
function answerUnparsedRequest(error: NodeJS.ErrnoException, socket: Duplex): void {
  if (error.code === "ECONNRESET" || !socket.writable) {
    socket.destroy();
    return;
  }
  const answer =
    error.code === "HPE_HEADER_OVERFLOW"
      ? GATEWAY_ERRORS.headersTooLarge
      : error.code === "HPE_INVALID_METHOD"
        ? GATEWAY_ERRORS.routeNotFound
        : GATEWAY_ERRORS.badRequest;
  socket.end(rawGatewayResponse(answer));
}

/** A whole HTTP/1.1 response carrying the error envelope, for a socket the HTTP server gave up on. */
function rawGatewayResponse(error: GatewayError): string {
  const body = JSON.stringify(errorEnvelope(error.code, error.message));
  return [
    `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status] ?? ""}`,
    `Content-Type: ${JSON_CONTENT_TYPE}`,
    `Content-Length: ${Buffer.byteLength(body)}`,
    "Connection: close",
    "",
    body,
  ].join("\r\n");
}

function sendGatewayError(res: ServerResponse, error: GatewayError, headers: Record<string, string> = {}): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  sendJson(res, error.status, errorEnvelope(error.code, error.message), headers);
}
