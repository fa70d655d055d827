import { ERROR_STATUS, type ErrorCode } from "./api-errors.ts";

/**
 * An error whose message is safe to show to the caller. Anything else thrown by a handler is
 * reported as a generic 500 and logged.
 */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly headers: Record<string, string>;

  constructor(code: ErrorCode, message: string, headers: Record<string, string> = {}) {
    super(message);
    this.name = "AppError";
    this.code = code;
    this.status = ERROR_STATUS[code];
    this.headers = headers;
  }
}

export const badRequest = (message: string) => new AppError("bad_request", message);
export const forbidden = (message: string) => new AppError("forbidden", message);
export const notFound = (message: string) => new AppError("not_found", message);
export const conflict = (message: string) => new AppError("conflict", message);
export const unprocessable = (message: string) => new AppError("unprocessable_entity", message);

export function isAppError(error: unknown): error is AppError {
  return error instanceof AppError;
}

/**
 * True when DynamoDB refused a write because a condition did not hold: someone else moved first.
 * A cancelled transaction counts only when one of its reasons is ConditionalCheckFailed; one
 * cancelled for a conflict, throttling or a validation error is something else entirely.
 */
export function isConditionFailure(error: unknown): boolean {
  const name = (error as { name?: string } | null)?.name;
  if (name === "ConditionalCheckFailedException") return true;
  return name === "TransactionCanceledException" && cancellationReasons(error).includes("ConditionalCheckFailed");
}

/** Reasons DynamoDB gave for a cancelled transaction, one per action, `None` where it passed. */
export function cancellationReasons(error: unknown): string[] {
  const reasons = (error as { CancellationReasons?: { Code?: string }[] } | null)?.CancellationReasons;
  return (reasons ?? []).map((reason) => reason.Code ?? "None");
}
