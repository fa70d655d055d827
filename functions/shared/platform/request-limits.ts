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
