/**
 * Why the service refuses to do something, in its own terms. Repositories and workflows throw these;
 * only the HTTP edge knows which status and spec error code each refusal becomes
 * (http/error-mapping.ts). The message is written for the caller and is shown as is.
 */
export type Refusal = "invalid" | "forbidden" | "not_found" | "conflict" | "unprocessable" | "busy";

export class DomainError extends Error {
  constructor(
    readonly refusal: Refusal,
    message: string,
  ) {
    super(message);
    this.name = "DomainError";
  }
}

/** The request is malformed (an id, a header, a cursor that cannot be what it claims). */
export const invalidRequest = (message: string) => new DomainError("invalid", message);
export const forbidden = (message: string) => new DomainError("forbidden", message);
export const notFound = (message: string) => new DomainError("not_found", message);
/** The request is well-formed but the current state does not allow it. */
export const conflict = (message: string) => new DomainError("conflict", message);
/** The request is well-formed but its content breaks a rule (schema, limits). */
export const unprocessable = (message: string) => new DomainError("unprocessable", message);
/** Something the request needs is busy or unreachable for now (a model provider); the same request may succeed shortly. */
export const busy = (message: string) => new DomainError("busy", message);

export function isDomainError(error: unknown): error is DomainError {
  return error instanceof DomainError;
}
