import { UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { dynamo } from "./dynamo/client.ts";
import { config } from "../platform/env.ts";
import { isConditionFailure } from "./dynamo/conditions.ts";
import { keys } from "./dynamo/keys.ts";
import { TTL_ATTRIBUTE } from "./dynamo/table-schema.ts";

/**
 * Fixed-window request counters in the table, for callers API Gateway's usage plans cannot tell
 * apart (visitors of a public hosted page have no key). One conditional UpdateItem per limit and
 * request: the count only grows while under the limit, so concurrent requests cannot overshoot it.
 * Windows expire by TTL; a window left behind costs nothing.
 */
export interface RateLimit {
  /** What is counted, e.g. `hosted:<slug>` or `hosted:<slug>:visitor:<ip>`. */
  name: string;
  limit: number;
  windowSeconds: number;
}

/** Counts one request against every limit; the first one that is full refuses it, with the seconds until its window ends. */
export async function countRequest(limits: readonly RateLimit[], now = Date.now()): Promise<{ allowed: true } | { allowed: false; retryAfterSeconds: number; name: string }> {
  for (const limit of limits) {
    const windowMs = limit.windowSeconds * 1000;
    const windowStart = Math.floor(now / windowMs) * windowMs;
    try {
      await dynamo().send(
        new UpdateCommand({
          TableName: config.tableName(),
          Key: keys.rateWindow(limit.name, windowStart),
          UpdateExpression: "ADD hits :one SET #ttl = if_not_exists(#ttl, :expires), entityType = :type",
          ConditionExpression: "attribute_not_exists(hits) OR hits < :limit",
          ExpressionAttributeNames: { "#ttl": TTL_ATTRIBUTE },
          ExpressionAttributeValues: {
            ":one": 1,
            ":limit": limit.limit,
            ":expires": Math.ceil((windowStart + 2 * windowMs) / 1000),
            ":type": "RateWindow",
          },
        }),
      );
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((windowStart + windowMs - now) / 1000)), name: limit.name };
    }
  }
  return { allowed: true };
}
