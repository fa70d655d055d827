import { existsSync, readFileSync } from "node:fs";
import { ENV } from "../functions/shared/platform/env-names.ts";
import type { QueueName } from "../lib/routes.ts";
import { localStackFile } from "../local/stack-file.ts";

/** What `npm run dev` records about the running local stack (local/dev.ts writes it). */
export interface LocalStackRecord {
  baseUrl: string;
  endpoints: { dynamo: string; s3: string; sqs: string };
  resources: {
    tableName: string;
    bucketName: string;
    queues: Record<QueueName, { url: string; arn: string; dlqUrl: string }>;
  };
}

/**
 * Points this process's SDK clients and configuration at the running local stack, through the same
 * environment variables Lambda gives the functions. Throws when no local stack is running.
 */
export function useRunningLocalStack(): LocalStackRecord {
  const stackFile = localStackFile();
  if (!existsSync(stackFile)) throw new Error("No local stack is running (start it with npm run dev), and no AWS target was given.");
  const stack = JSON.parse(readFileSync(stackFile, "utf8")) as LocalStackRecord;
  Object.assign(process.env, {
    AWS_REGION: "us-east-1",
    AWS_ACCESS_KEY_ID: "local",
    AWS_SECRET_ACCESS_KEY: "local",
    AWS_EC2_METADATA_DISABLED: "true",
    AWS_ENDPOINT_URL_DYNAMODB: stack.endpoints.dynamo,
    AWS_ENDPOINT_URL_S3: stack.endpoints.s3,
    AWS_ENDPOINT_URL_SQS: stack.endpoints.sqs,
    [ENV.tableName]: stack.resources.tableName,
    [ENV.bucketName]: stack.resources.bucketName,
    [ENV.ingestQueueUrl]: stack.resources.queues.ingest.url,
    [ENV.deleteQueueUrl]: stack.resources.queues.delete.url,
    [ENV.mailQueueUrl]: stack.resources.queues.mail.url,
    [ENV.vectorStoreBackend]: "embedded",
  });
  return stack;
}
