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
