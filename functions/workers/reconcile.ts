import type { Context } from "aws-lambda";
import { logger } from "../shared/platform/logger.ts";
import { reconcile, type ReconcileReport } from "../shared/workflows/maintenance/run-reconciliation.ts";

/**
 * The scheduled reconciliation (an EventBridge rule invokes it hourly). A manual invocation may pass
 * `{"dryRun": true}` to see what a run would change; the scheduled event carries no such field.
 */
export async function handler(event: unknown, context: Context): Promise<ReconcileReport> {
  const dryRun = typeof event === "object" && event !== null && (event as { dryRun?: unknown }).dryRun === true;
  logger.appendKeys({ awsRequestId: context.awsRequestId });
  const report = await reconcile({ dryRun, remainingMs: () => context.getRemainingTimeInMillis() });
  if (!report.complete) logger.warn("reconciliation ran out of time; the next run starts over", { durationMs: report.durationMs });
  return report;
}
