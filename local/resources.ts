import { CreateTableCommand, DynamoDBClient, UpdateTimeToLiveCommand } from "@aws-sdk/client-dynamodb";
import { CreateBucketCommand, S3Client } from "@aws-sdk/client-s3";
import { CreateQueueCommand, GetQueueAttributesCommand, SQSClient } from "@aws-sdk/client-sqs";
import {
  ALL_INDEXES,
  LIST_SORT_KEY,
  PARTITION_KEY,
  SORT_KEY,
  TTL_ATTRIBUTE,
} from "../functions/shared/db/dynamo/table-schema.ts";
import type { QueueName } from "../lib/routes.ts";
import { QUEUES, workerForQueue } from "../lib/workers.ts";

export interface QueueResources {
  url: string;
  arn: string;
  dlqUrl: string;
}

export interface LocalResources {
  tableName: string;
  bucketName: string;
  queues: Record<QueueName, QueueResources>;
}

/** The table exactly as the CDK stack declares it: the same module supplies keys and indexes. */
export async function createTable(client: DynamoDBClient, tableName: string): Promise<void> {
  const attributes = new Set<string>([PARTITION_KEY, SORT_KEY, LIST_SORT_KEY, ...ALL_INDEXES.map((index) => index.partitionKey)]);
  try {
    await client.send(
      new CreateTableCommand({
        TableName: tableName,
        BillingMode: "PAY_PER_REQUEST",
        AttributeDefinitions: [...attributes].map((name) => ({ AttributeName: name, AttributeType: "S" })),
        KeySchema: [
          { AttributeName: PARTITION_KEY, KeyType: "HASH" },
          { AttributeName: SORT_KEY, KeyType: "RANGE" },
        ],
        GlobalSecondaryIndexes: ALL_INDEXES.map((index) => ({
          IndexName: index.name,
          KeySchema: [
            { AttributeName: index.partitionKey, KeyType: "HASH" },
            { AttributeName: LIST_SORT_KEY, KeyType: "RANGE" },
          ],
          Projection: { ProjectionType: "ALL" },
        })),
      }),
    );
  } catch (error) {
    // A persisted table from an earlier run is reused as it is.
    if ((error as { name?: string }).name !== "ResourceInUseException") throw error;
    return;
  }
  await client.send(
    new UpdateTimeToLiveCommand({ TableName: tableName, TimeToLiveSpecification: { AttributeName: TTL_ATTRIBUTE, Enabled: true } }),
  );
}

export async function createBucket(client: S3Client, bucketName: string): Promise<void> {
  try {
    await client.send(new CreateBucketCommand({ Bucket: bucketName }));
  } catch (error) {
    const name = (error as { name?: string }).name;
    if (name !== "BucketAlreadyOwnedByYou" && name !== "BucketAlreadyExists") throw error;
  }
}

async function queueArn(client: SQSClient, url: string): Promise<string> {
  const result = await client.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ["QueueArn"] }));
  const arn = result.Attributes?.QueueArn;
  if (!arn) throw new Error(`queue ${url} has no ARN`);
  return arn;
}

/** A work queue with its dead-letter queue and redrive policy, as in the CDK stack. */
export async function createWorkQueue(
  client: SQSClient,
  name: string,
  options: { visibilityTimeoutSeconds: number; maxReceiveCount: number },
): Promise<QueueResources> {
  const dlq = await client.send(
    new CreateQueueCommand({ QueueName: `${name}-dlq`, Attributes: { MessageRetentionPeriod: String(14 * 24 * 3600) } }),
  );
  const dlqUrl = dlq.QueueUrl!;
  const dlqArn = await queueArn(client, dlqUrl);
  const queue = await client.send(
    new CreateQueueCommand({
      QueueName: name,
      Attributes: {
        VisibilityTimeout: String(options.visibilityTimeoutSeconds),
        RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlqArn, maxReceiveCount: options.maxReceiveCount }),
      },
    }),
  );
  const url = queue.QueueUrl!;
  return { url, arn: await queueArn(client, url), dlqUrl };
}

/**
 * The visibility timeout follows the timeout of the worker the queue feeds (lib/workers.ts), so a
 * long step is never delivered again while it still runs. The local poller stops an invocation at
 * that timeout itself, so a little margin does here what AWS's six times the timeout does for the
 * event source mapping, and a failed delivery is retried minutes later, not half an hour.
 */
export const LOCAL_VISIBILITY_MARGIN_SECONDS = 30;

export function localVisibilityTimeoutSeconds(queue: QueueName): number {
  const worker = workerForQueue(queue);
  return (worker?.timeoutSeconds ?? 0) + LOCAL_VISIBILITY_MARGIN_SECONDS;
}

export async function createResources(
  clients: { dynamo: DynamoDBClient; s3: S3Client; sqs: SQSClient },
  options: { prefix: string; visibilityTimeoutSeconds?: number; maxReceiveCount?: number },
): Promise<LocalResources> {
  const tableName = `${options.prefix}-table`;
  const bucketName = `${options.prefix}-files`;
  await createTable(clients.dynamo, tableName);
  await createBucket(clients.s3, bucketName);
  const queues = {} as Record<QueueName, QueueResources>;
  for (const queue of Object.values(QUEUES)) {
    queues[queue.name] = await createWorkQueue(clients.sqs, `${options.prefix}-${queue.name}`, {
      visibilityTimeoutSeconds: options.visibilityTimeoutSeconds ?? localVisibilityTimeoutSeconds(queue.name),
      maxReceiveCount: options.maxReceiveCount ?? queue.maxReceiveCount,
    });
  }
  return { tableName, bucketName, queues };
}
