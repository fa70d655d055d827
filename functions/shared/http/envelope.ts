/**
 * The error codes of the interface spec (section 7) with their fixed HTTP statuses, and the one
 * function that builds the error envelope. Used by handlers, the authorizer's gateway responses and
 * the local gateway alike.
 */
export const ERROR_STATUS = {
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  invite_expired: 410,
  payload_too_large: 413,
  unprocessable_entity: 422,
  rate_limit_exceeded: 429,
  internal_server_error: 500,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export interface ErrorEnvelope {
  success: false;
  error: { code: ErrorCode; message: string };
}

export function errorEnvelope(code: ErrorCode, message: string): ErrorEnvelope {
  return { success: false, error: { code, message } };
}

export const JSON_CONTENT_TYPE = "application/json; charset=utf-8";

export const INTERNAL_ERROR_MESSAGE = "An unexpected error occurred. Try again later.";
