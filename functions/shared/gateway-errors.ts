import type { ErrorCode } from "./api-errors.ts";

/**
 * Errors the gateway answers itself, before any handler runs. The CDK stack turns these into API
 * Gateway gateway responses and the local gateway answers with the same bodies, so a client sees the
 * same envelope from either.
 */
export interface GatewayError {
  status: number;
  code: ErrorCode;
  message: string;
}

export const GATEWAY_ERRORS = {
  /** Missing, malformed or unknown API key (the authorizer threw "Unauthorized"). */
  unauthorized: { status: 401, code: "unauthorized", message: "Missing or invalid API key." },
  /** The authorizer denied the key. */
  forbidden: { status: 403, code: "forbidden", message: "This API key is not allowed to perform this request." },
  /**
   * No route matches the path and method; API Gateway reports this as a missing authentication
   * token, for an unknown path and for a method the path does not have alike. The local gateway
   * answers the same for a method it cannot even parse (`FOO`) and for CONNECT.
   */
  routeNotFound: { status: 404, code: "not_found", message: "No such route." },
  /** A body over API Gateway's 10 MB, or one whose Lambda event would exceed 6 MB (see below). */
  payloadTooLarge: { status: 413, code: "payload_too_large", message: "The request body is too large." },
  /** A path segment that is "." or ".." once percent-decoded, refused before routing. */
  dotSegment: { status: 400, code: "bad_request", message: "The path must not contain '.' or '..' segments." },
  /**
   * The request line and headers are larger than the gateway reads. 400, not 431: the spec pairs
   * no code with 431, and the deployed stack's DEFAULT_4XX response answers every 4XX it has no
   * mapping for with 400 bad_request.
   */
  headersTooLarge: { status: 400, code: "bad_request", message: "The request line and headers are too large." },
  throttled: { status: 429, code: "rate_limit_exceeded", message: "Too many requests; retry after the time given in Retry-After." },
  badRequest: { status: 400, code: "bad_request", message: "The request could not be processed." },
  internal: { status: 500, code: "internal_server_error", message: "An unexpected error occurred. Try again later." },
} as const satisfies Record<string, GatewayError>;

/** Largest request body API Gateway accepts (10 MB); the local gateway enforces the same. */
export const MAX_REQUEST_BODY_BYTES = 10 * 1024 * 1024;

/**
 * Largest payload of a synchronous Lambda invocation: 6 MB, 6,291,456 bytes, counted over the whole
 * JSON event API Gateway sends (the body as an escaped JSON string, the headers twice, the query,
 * the request context), so a body well under 10 MB can still be refused. The function never runs;
 * API Gateway logs "N byte payload is too large for the RequestResponse invocation type (limit
 * 6291456 bytes)". Which gateway response the client then gets is not documented: reports show
 * both a 413 with API Gateway's REQUEST_TOO_LARGE body and a 500. The stack maps REQUEST_TOO_LARGE
 * to the 413 envelope and DEFAULT_5XX to the 500 envelope, and does not remap other 5XX responses
 * to 413, because those also carry real failures. The local gateway answers 413, and the service's
 * own limits (MAX_TEXT_CHARACTERS) keep every valid request well inside this size.
 */
export const MAX_LAMBDA_EVENT_BYTES = 6 * 1024 * 1024;
