import { BatchGetCommand } from "@aws-sdk/lib-dynamodb";
import { dynamo } from "./client.ts";
import { config } from "../../platform/env.ts";
import type { TableKey } from "./keys.ts";

/**
 * A projection of `fields` (names are placeholders, so reserved words such as `status` are safe); none
 * without fields. A dotted field (`source.type`) is a path into a map: one attribute of it, not all.
 */
export function projectionOf(fields: readonly string[] | undefined): { expression: string; names: Record<string, string> } | null {
  if (!fields) return null;
  const names: Record<string, string> = {};
  const paths = fields.map((field, position) =>
    field
      .split(".")
      .map((part, depth) => {
        const name = `#f${position}${depth === 0 ? "" : `_${depth}`}`;
        names[name] = part;
        return name;
      })
      .join("."),
  );
  return { expression: paths.join(", "), names };
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
