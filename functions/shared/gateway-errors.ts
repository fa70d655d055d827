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
  /** No route matches; API Gateway reports this as a missing authentication token. */
  routeNotFound: { status: 404, code: "not_found", message: "No such route." },
  payloadTooLarge: { status: 413, code: "payload_too_large", message: "The request body is too large." },
  throttled: { status: 429, code: "rate_limit_exceeded", message: "Too many requests; retry after the time given in Retry-After." },
  badRequest: { status: 400, code: "bad_request", message: "The request could not be processed." },
  internal: { status: 500, code: "internal_server_error", message: "An unexpected error occurred. Try again later." },
} as const satisfies Record<string, GatewayError>;

/** Largest request body API Gateway accepts (10 MB); the local gateway enforces the same. */
export const MAX_REQUEST_BODY_BYTES = 10 * 1024 * 1024;
