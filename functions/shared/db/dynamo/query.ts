import { QueryCommand } from "@aws-sdk/lib-dynamodb";
import { dynamo } from "./client.ts";
import { config } from "../../platform/env.ts";
import { INDEX, type IndexKey } from "./table-schema.ts";
import { projectionOf } from "./batch-get.ts";
import { namespaceListGroup } from "./keys.ts";

/**
 * The pages of one index group, oldest first, each page read after the previous one's last
 * key. Index reads are eventually consistent: a page may still list a record deleted a moment ago
 * or not yet list one just written, so callers re-read what they act on. With `fields`, only those
 * attributes are read.
 */
export async function* queryPages(
  index: IndexKey,
  group: string,
  options: { pageSize?: number; fields?: readonly string[] } = {},
): AsyncGenerator<Record<string, unknown>[]> {
  const projection = projectionOf(options.fields);
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await dynamo().send(
      new QueryCommand({
        TableName: config.tableName(),
        IndexName: INDEX[index].name,
        KeyConditionExpression: "#pk = :pk",
        ExpressionAttributeNames: { "#pk": INDEX[index].partitionKey, ...projection?.names },
        ExpressionAttributeValues: { ":pk": group },
        ProjectionExpression: projection?.expression,
        ExclusiveStartKey: startKey,
        Limit: options.pageSize,
      }),
    );
    yield page.Items ?? [];
    startKey = page.LastEvaluatedKey;
  } while (startKey);
}

/**
 * Every item of one index group, oldest first. Request paths use it only for groups that
 * stay small (an organization's namespaces or keys); over unbounded groups they use the cursor
 * pager.
 */
export async function queryWholeGroup(index: IndexKey, group: string): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  for await (const page of queryPages(index, group)) items.push(...page);
  return items;
}

/** The ids of a namespace's jobs or documents, page after page, as its list index has them (a moment behind the records). */
export async function* idsOfNamespace(collection: "JOBS" | "DOCS", namespaceId: string): AsyncGenerator<string[]> {
  for await (const page of queryPages("collection", namespaceListGroup(collection, namespaceId), { fields: ["id"] })) yield page.map((entry) => String(entry.id));
}
