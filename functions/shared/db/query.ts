import { QueryCommand } from "@aws-sdk/lib-dynamodb";
import { dynamo } from "../aws-clients.ts";
import { config } from "../env.ts";
import { INDEX, type IndexKey } from "./table-schema.ts";

/**
 * Every item of one index partition, oldest first. Only for partitions that stay small (an
 * organization's namespaces or keys); request paths over unbounded partitions use the cursor pager.
 */
export async function queryWholePartition(index: IndexKey, partition: string): Promise<Record<string, unknown>[]> {
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
      }),
    );
    items.push(...(page.Items ?? []));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return items;
}
