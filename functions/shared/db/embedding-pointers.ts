import { DeleteCommand, PutCommand } from "@aws-sdk/lib-dynamodb";
import { batchGetItems } from "./dynamo/batch-get.ts";
import { dynamo } from "./dynamo/client.ts";
import { config } from "../platform/env.ts";
import { mapLimited } from "../platform/concurrency.ts";
import { isConditionFailure } from "./dynamo/conditions.ts";
import { embeddingPointersGroup, keys } from "./dynamo/keys.ts";
import { queryPages } from "./dynamo/query.ts";
import { INDEX, LIST_SORT_KEY } from "./dynamo/table-schema.ts";

/**
 * Embedding pointers: for a chunk text already embedded in a vector partition, the key of a vector
 * that holds it, so another document of the namespace with the same chunk copies that vector
 * instead of paying for a new embedding. A pointer is only a hint: the vector it names may have
 * been deleted or replaced since, so readers fetch it and use it only if its stored text is the
 * chunk's exact text. Each pointer is listed under the document whose vector it names (parent
 * index), so deleting the document deletes its pointers; the namespace cascade deletes every
 * document, and with them every pointer.
 */
export interface EmbeddingSpace {
  namespaceId: string;
  tenantId: string | null;
  /** Provider and model (`BEDROCK:amazon.titan-embed-text-v2:0`): another model's vectors never match. */
  model: string;
  dimension: number;
}

const WRITE_CONCURRENCY = 16;

/** The vector key each known text hash points to; unknown hashes are absent. */
export async function findEmbeddingPointers(space: EmbeddingSpace, textHashes: readonly string[]): Promise<Map<string, string>> {
  const items = await batchGetItems([...new Set(textHashes)].map((hash) => keys.embeddingPointer(space, hash)), { fields: ["textHash", "vectorKey"] });
  return new Map(items.map((item) => [String(item.textHash), String(item.vectorKey)]));
}

/** Points each hash at a vector of `documentId`; a later writer of the same text simply takes the pointer over. */
export async function recordEmbeddingPointers(
  space: EmbeddingSpace,
  documentId: string,
  pointers: readonly { textHash: string; vectorKey: string }[],
): Promise<void> {
  const table = config.tableName();
  await mapLimited(pointers, WRITE_CONCURRENCY, ({ textHash, vectorKey }) =>
    dynamo().send(
      new PutCommand({
        TableName: table,
        Item: {
          ...keys.embeddingPointer(space, textHash),
          [INDEX.parent.partitionKey]: embeddingPointersGroup(documentId),
          [LIST_SORT_KEY]: textHash,
          entityType: "EmbeddingPointer",
          textHash,
          vectorKey,
        },
      }),
    ),
  );
}

/**
 * Deletes the pointers to a document's vectors. The index may still list a pointer another document
 * has taken over since; the condition leaves that one alone.
 */
export async function deleteEmbeddingPointersOf(documentId: string): Promise<void> {
  const table = config.tableName();
  for await (const page of queryPages("parent", embeddingPointersGroup(documentId), { fields: ["PK", "SK"] })) {
    await mapLimited(page, WRITE_CONCURRENCY, async (item) => {
      try {
        await dynamo().send(
          new DeleteCommand({
            TableName: table,
            Key: { PK: item.PK, SK: item.SK },
            ConditionExpression: "begins_with(vectorKey, :document)",
            ExpressionAttributeValues: { ":document": `${documentId}#` },
          }),
        );
      } catch (error) {
        if (!isConditionFailure(error)) throw error;
      }
    });
  }
}
