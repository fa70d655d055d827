import { logger } from "./logger.ts";

/** The CloudWatch namespace of the service's own metrics. */
export const METRICS_NAMESPACE = "KnowledgeIngestionService";

/**
 * Counts one event as a CloudWatch metric through the log line that reports it: a line in the
 * Embedded Metric Format, which CloudWatch Logs turns into a data point with no API call and no
 * extra client in the bundle. `fields` say what happened (never secrets or whole addresses).
 */
export function countEvent(metric: string, message: string, fields: Record<string, unknown> = {}, level: "warn" | "error" = "warn"): void {
  logger[level](message, {
    ...fields,
    [metric]: 1,
    _aws: { Timestamp: Date.now(), CloudWatchMetrics: [{ Namespace: METRICS_NAMESPACE, Dimensions: [[]], Metrics: [{ Name: metric, Unit: "Count" }] }] },
  });
}
