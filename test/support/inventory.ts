import { ListObjectsV2Command } from "@aws-sdk/client-s3";
import { DynamoDBDocumentClient, ScanCommand } from "@aws-sdk/lib-dynamodb";
import { embeddedVectorStore } from "../../functions/shared/vector-store/embedded.ts";
import type { LocalStack } from "../../local/stack.ts";

/** Every table item that mentions `needle` anywhere (keys or attributes). */
export async function tableItemsMentioning(stack: LocalStack, needle: string): Promise<Record<string, unknown>[]> {
  const found: Record<string, unknown>[] = [];
  let startKey: Record<string, any> | undefined;
  do {
    const page = await DynamoDBDocumentClient.from(stack.clients.dynamo).send(
      new ScanCommand({ TableName: stack.resources.tableName, ExclusiveStartKey: startKey }),
    );
    for (const item of page.Items ?? []) {
      if (JSON.stringify(item).includes(needle)) found.push(item);
    }
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return found;
}

export async function objectKeys(stack: LocalStack, prefix: string): Promise<string[]> {
  const keys: string[] = [];
  let token: string | undefined;
  do {
    const page = await stack.clients.s3.send(new ListObjectsV2Command({ Bucket: stack.resources.bucketName, Prefix: prefix, ContinuationToken: token }));
    keys.push(...(page.Contents ?? []).map((object) => object.Key ?? ""));
    token = page.NextContinuationToken;
  } while (token);
  return keys;
}

/** Vector keys of a partition that belong to one document. */
export async function vectorKeysOfDocument(namespaceId: string, tenantId: string | null, documentId: string): Promise<string[]> {
  const keys: string[] = [];
  for await (const page of embeddedVectorStore().listKeys({ namespaceId, tenantId, dimension: 384 })) {
    keys.push(...page.filter((key) => key.startsWith(`${documentId}#`)));
  }
  return keys;
}

export function vectorCount(namespaceId: string, tenantId: string | null = null): number {
  return embeddedVectorStore().size({ namespaceId, tenantId });
}
