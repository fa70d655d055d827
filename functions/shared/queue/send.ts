import { SendMessageBatchCommand, SendMessageCommand } from "@aws-sdk/client-sqs";
import { sqs } from "./client.ts";
import { config } from "../platform/env.ts";
import type { QueueName } from "./names.ts";
import type { DeleteMessage, IngestMessage, MailMessage } from "./messages.ts";

type MessageOf<Q extends QueueName> = Q extends "ingest" ? IngestMessage : Q extends "delete" ? DeleteMessage : MailMessage;

const QUEUE_URL: Record<QueueName, () => string> = {
  ingest: config.ingestQueueUrl,
  delete: config.deleteQueueUrl,
  mail: config.mailQueueUrl,
};

function queueUrl(queue: QueueName): string {
  return QUEUE_URL[queue]();
}

export async function enqueue<Q extends QueueName>(queue: Q, message: MessageOf<Q>, delaySeconds = 0): Promise<void> {
  await sqs().send(
    new SendMessageCommand({ QueueUrl: queueUrl(queue), MessageBody: JSON.stringify(message), DelaySeconds: delaySeconds }),
  );
}

/** Sends many messages, ten per request (the SQS maximum), failing if any one is refused. */
export async function enqueueAll<Q extends QueueName>(queue: Q, messages: MessageOf<Q>[]): Promise<void> {
  for (let start = 0; start < messages.length; start += 10) {
    const batch = messages.slice(start, start + 10);
    const result = await sqs().send(
      new SendMessageBatchCommand({
        QueueUrl: queueUrl(queue),
        Entries: batch.map((message, index) => ({ Id: String(index), MessageBody: JSON.stringify(message) })),
      }),
    );
    if (result.Failed && result.Failed.length > 0) {
      throw new Error(`SQS refused ${result.Failed.length} message(s): ${result.Failed[0]?.Message ?? "unknown reason"}`);
    }
  }
}
