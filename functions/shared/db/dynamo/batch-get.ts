import { BatchGetCommand } from "@aws-sdk/lib-dynamodb";
import { dynamo } from "./client.ts";
import { config } from "../../platform/env.ts";
import type { TableKey } from "./keys.ts";

/** A projection of `fields` (names are placeholders, so reserved words such as `status` are safe); none without fields. */
export function projectionOf(fields: readonly string[] | undefined): { expression: string; names: Record<string, string> } | null {
  if (!fields) return null;
  return {
    expression: fields.map((_, position) => `#f${position}`).join(", "),
    names: Object.fromEntries(fields.map((field, position) => [`#f${position}`, field])),
  };
}

/**
 * The items at `itemKeys` that exist, in no particular order: 100 keys per BatchGetItem, and the keys
 * DynamoDB leaves unprocessed asked again until none remain.
 */
export async function batchGetItems(
  itemKeys: readonly TableKey[],
  options: { consistent?: boolean; fields?: readonly string[] } = {},
): Promise<Record<string, unknown>[]> {
  const table = config.tableName();
  const projection = projectionOf(options.fields);
  const items: Record<string, unknown>[] = [];
  for (let start = 0; start < itemKeys.length; start += 100) {
    let request: Record<string, { Keys: Record<string, unknown>[] }> | undefined = {
      [table]: {
        Keys: itemKeys.slice(start, start + 100).map((key) => ({ ...key })),
        ...(options.consistent ? { ConsistentRead: true } : {}),
        ...(projection ? { ProjectionExpression: projection.expression, ExpressionAttributeNames: projection.names } : {}),
      },
    };
    while (request && Object.keys(request).length > 0) {
      const result = await dynamo().send(new BatchGetCommand({ RequestItems: request }));
      items.push(...(result.Responses?.[table] ?? []));
      request = result.UnprocessedKeys as typeof request;
    }
  }
  return items;
}
