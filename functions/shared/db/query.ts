import { QueryCommand } from "@aws-sdk/lib-dynamodb";
import { dynamo } from "../aws-clients.ts";
import { config } from "../env.ts";
import { INDEX, type IndexKey } from "./table-schema.ts";

/**
 * Every item (or the first `limit`) of one index partition, oldest first. Request paths use it only
 * for partitions that stay small (an organization's namespaces or keys); over unbounded partitions
 * they use the cursor pager.
 */
export async function queryWholePartition(index: IndexKey, partition: string, limit = Number.POSITIVE_INFINITY): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await dynamo().send(
      new QueryCommand({
        TableName: config.tableName(),
        IndexName: INDEX[index].name,
        KeyConditionExpression: "#pk = :pk",
        ExpressionAttributeNames: { "#pk": INDEX[index].partitionKey },
        ExpressionAttributeValues: { ":pk": partition },
        ExclusiveStartKey: startKey,
        Limit: Number.isFinite(limit) ? limit : undefined,
      }),
    );
    items.push(...(page.Items ?? []));
    startKey = page.LastEvaluatedKey;
  } while (startKey && items.length < limit);
  return items.slice(0, limit);
}
