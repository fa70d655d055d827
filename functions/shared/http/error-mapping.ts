import type { Refusal } from "../domain/errors.ts";
import { isDomainError } from "../domain/errors.ts";
import { logger } from "../platform/logger.ts";
import { ERROR_STATUS, type ErrorCode, INTERNAL_ERROR_MESSAGE } from "./envelope.ts";

/**
 * The one place a thrown error becomes the spec's error envelope. Domain refusals map to their
 * code; errors only the edge raises carry their code themselves; anything else is logged and
 * answered as a generic 500, so no internal detail reaches the caller.
 */

/** An error only the HTTP edge raises (authentication, rate limits), with its spec code. */
export class HttpError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = "HttpError";
  }
}

const CODE_OF_REFUSAL: Record<Refusal, ErrorCode> = {
  invalid: "bad_request",
  forbidden: "forbidden",
  not_found: "not_found",
  conflict: "conflict",
  unprocessable: "unprocessable_entity",
  busy: "rate_limit_exceeded",
};

/** How long a caller refused as `busy` is asked to wait. */
const BUSY_RETRY_AFTER_SECONDS = "5";

export interface ErrorReply {
  status: number;
  code: ErrorCode;
  message: string;
  headers: Record<string, string>;
}

export function errorReply(error: unknown): ErrorReply {
  if (isDomainError(error)) {
    const code = CODE_OF_REFUSAL[error.refusal];
    return { status: ERROR_STATUS[code], code, message: error.message, headers: error.refusal === "busy" ? { "retry-after": BUSY_RETRY_AFTER_SECONDS } : {} };
  }
  if (error instanceof HttpError) return { status: ERROR_STATUS[error.code], code: error.code, message: error.message, headers: error.headers };
  logger.error("unhandled error", error as Error);
  return { status: 500, code: "internal_server_error", message: INTERNAL_ERROR_MESSAGE, headers: {} };
}
