import {
  DeleteMessageBatchCommand,
  type Message,
  ReceiveMessageCommand,
  type SQSClient,
} from "@aws-sdk/client-sqs";
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from "aws-lambda";
import { invokeLocally } from "./lambda-context.ts";

type SqsHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse | void>;

export interface PollerOptions {
  client: SQSClient;
  queueUrl: string;
  queueArn: string;
  functionName: string;
  loadHandler: () => Promise<SqsHandler>;
  batchSize: number;
  timeoutSeconds: number;
  /** Batches handled at once, like concurrent Lambda invocations of one event source mapping. */
  concurrency: number;
}

export interface Poller {
  /** Resolves once every batch in hand has been handled and acknowledged. */
  stop(): Promise<void>;
}

/**
 * The local counterpart of an SQS event source mapping with ReportBatchItemFailures: batches go to
 * the real worker handler; messages it reports as failed (or all of them, if it throws or times out)
 * stay on the queue, reappear after the visibility timeout and reach the dead-letter queue after
 * maxReceiveCount deliveries, because the queue's own redrive policy does that.
 */
export function startPoller(options: PollerOptions): Poller {
  let running = true;
  const loops = Array.from({ length: options.concurrency }, () => pollLoop());

  async function pollLoop(): Promise<void> {
    while (running) {
      let messages: Message[] = [];
      try {
        const received = await options.client.send(
          new ReceiveMessageCommand({
            QueueUrl: options.queueUrl,
            MaxNumberOfMessages: Math.min(options.batchSize, 10),
            WaitTimeSeconds: 1,
            MessageSystemAttributeNames: ["All"],
            MessageAttributeNames: ["All"],
          }),
        );
        messages = received.Messages ?? [];
      } catch (error) {
        if (!running) return;
        console.error(`poller ${options.functionName}: receive failed`, error);
        await new Promise((resolve) => setTimeout(resolve, 500));
        continue;
      }
      if (messages.length > 0) await deliver(messages);
    }
  }

  async function deliver(messages: Message[]): Promise<void> {
    const event: SQSEvent = { Records: messages.map((message) => toRecord(message, options.queueArn)) };
    let failed: Set<string>;
    let timer: NodeJS.Timeout | undefined;
    try {
      const handler = await options.loadHandler();
      const response = await Promise.race([
        invokeLocally(options.functionName, options.timeoutSeconds, (context) => handler(event, context)),
        new Promise<"timeout">((resolve) => {
          timer = setTimeout(() => resolve("timeout"), options.timeoutSeconds * 1000);
        }),
      ]);
      if (response === "timeout") {
        console.error(`poller ${options.functionName}: handler timed out`);
        return;
      }
      failed = new Set((response?.batchItemFailures ?? []).map((failure) => failure.itemIdentifier));
    } catch (error) {
      console.error(`poller ${options.functionName}: handler threw; the whole batch returns to the queue`, error);
      return;
    } finally {
      clearTimeout(timer);
    }
    const done = messages.filter((message) => !failed.has(message.MessageId ?? ""));
    if (done.length === 0) return;
    await options.client.send(
      new DeleteMessageBatchCommand({
        QueueUrl: options.queueUrl,
        Entries: done.map((message, index) => ({ Id: String(index), ReceiptHandle: message.ReceiptHandle })),
      }),
    );
  }

  return {
    stop: async () => {
      running = false;
      await Promise.all(loops);
    },
  };
}

function toRecord(message: Message, queueArn: string): SQSRecord {
  const attributes = (message.Attributes ?? {}) as Record<string, string>;
  return {
    messageId: message.MessageId ?? "",
    receiptHandle: message.ReceiptHandle ?? "",
    body: message.Body ?? "",
    attributes: {
      ApproximateReceiveCount: attributes.ApproximateReceiveCount ?? "1",
      SentTimestamp: attributes.SentTimestamp ?? String(Date.now()),
      SenderId: attributes.SenderId ?? "local",
      ApproximateFirstReceiveTimestamp: attributes.ApproximateFirstReceiveTimestamp ?? String(Date.now()),
    },
    messageAttributes: {},
    md5OfBody: message.MD5OfBody ?? "",
    eventSource: "aws:sqs",
    eventSourceARN: queueArn,
    awsRegion: "us-east-1",
  };
}
