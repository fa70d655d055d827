import { UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { dynamo } from "./aws-clients.ts";
import { config } from "./env.ts";
import { keys } from "./db/keys.ts";
import { getHosting, removeHosting } from "./db/hosting.ts";
import { getNamespace, markNamespaceDeleting, removeNamespaceRecord } from "./db/namespaces.ts";
import type { NamespaceRecord } from "./domain/namespace.ts";
import { enqueue } from "./queue.ts";

/**
 * Starts the namespace cascade: the status flips first so no new work can enter, then the cascade
 * is queued. If the queue refuses, the flip is undone so the namespace is never left DELETING with
 * nothing to finish the job.
 */
export async function beginNamespaceDeletion(namespace: NamespaceRecord): Promise<NamespaceRecord> {
  const deleting = await markNamespaceDeleting(namespace);
  try {
    await enqueue("delete", { kind: "namespace", namespaceId: namespace.id });
  } catch (error) {
    await dynamo().send(
      new UpdateCommand({
        TableName: config.tableName(),
        Key: keys.namespace(namespace.id),
        UpdateExpression: "SET #status = :active",
        ConditionExpression: "#status = :deleting",
        ExpressionAttributeNames: { "#status": "status" },
        ExpressionAttributeValues: { ":active": "ACTIVE", ":deleting": "DELETING" },
      }),
    );
    throw error;
  }
  return deleting;
}

/**
 * Removes a DELETING namespace and everything under it, the namespace record last, so a crash at
 * any step leaves the namespace listed as DELETING and the redelivered message resumes the work.
 */
export async function deleteNamespaceCascade(namespaceId: string): Promise<void> {
  const namespace = await getNamespace(namespaceId);
  // Already gone (a duplicate delivery), or the deletion was rolled back: nothing to do.
  if (!namespace || namespace.status !== "DELETING") return;
  const hosting = await getHosting(namespaceId);
  if (hosting) await removeHosting(hosting, false);
  await removeNamespaceRecord(namespace);
}
