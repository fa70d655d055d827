import { parseArgs } from "node:util";
import {
  ChangeMessageVisibilityBatchCommand,
  DeleteMessageBatchCommand,
  GetQueueAttributesCommand,
  type Message,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  type SQSClient,
} from "@aws-sdk/client-sqs";
import { sqs } from "../functions/shared/queue/client.ts";
import type { QueueName } from "../lib/routes.ts";
import { QUEUES } from "../lib/workers.ts";
import { useRunningLocalStack } from "./local-target.ts";
import { runWhenMain } from "./cli.ts";

const USAGE = `Usage: npm run dlq -- <command> [options]

Commands:
  list       show the messages waiting in the dead-letter queue (body, receive count, first sent)
  redrive    move them back to their work queue (each is deleted from the dead-letter queue only
             after the work queue accepted it)

Options:
  --queue ingest|delete   which work queue (default: both, on the local stack)
  --max N                 handle at most N messages (default: all that were waiting at the start)

Target (default: the running local stack started by npm run dev):
  --queue-url URL --dlq-url URL   a deployed work queue and its dead-letter queue (the stack outputs
                                  <Name>QueueUrl and <Name>DeadLetterQueueUrl); uses your AWS credentials
  --region REGION`;

export interface QueuePair {
  name: string;
  queueUrl: string;
  dlqUrl: string;
}

export interface DeadLetter {
  messageId: string;
  body: string;
  receiveCount: number;
  sentAt: string | null;
}

/** Long enough to send a batch on before SQS would hand the same messages to someone else. */
const HOLD_SECONDS = 60;

async function receive(client: SQSClient, queueUrl: string): Promise<Message[]> {
  const received = await client.send(
    new ReceiveMessageCommand({
      QueueUrl: queueUrl,
      MaxNumberOfMessages: 10,
      WaitTimeSeconds: 1,
      VisibilityTimeout: HOLD_SECONDS,
      MessageSystemAttributeNames: ["All"],
      MessageAttributeNames: ["All"],
    }),
  );
  return received.Messages ?? [];
}

/** Makes held messages visible again at once, for the next reader. */
async function release(client: SQSClient, queueUrl: string, messages: Message[]): Promise<void> {
  for (let start = 0; start < messages.length; start += 10) {
    const batch = messages.slice(start, start + 10);
    await client.send(
      new ChangeMessageVisibilityBatchCommand({
        QueueUrl: queueUrl,
        Entries: batch.map((message, index) => ({ Id: String(index), ReceiptHandle: message.ReceiptHandle, VisibilityTimeout: 0 })),
      }),
    );
  }
}

async function waitingCount(client: SQSClient, queueUrl: string): Promise<number> {
  const attributes = await client.send(
    new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"] }),
  );
  return Number(attributes.Attributes?.ApproximateNumberOfMessages ?? 0) + Number(attributes.Attributes?.ApproximateNumberOfMessagesNotVisible ?? 0);
}

function describe(message: Message): DeadLetter {
  const sent = message.Attributes?.SentTimestamp;
  return {
    messageId: message.MessageId ?? "",
    body: message.Body ?? "",
    // Includes this receive: reading a queue is itself a delivery.
    receiveCount: Number(message.Attributes?.ApproximateReceiveCount ?? 0),
    sentAt: sent ? new Date(Number(sent)).toISOString() : null,
  };
}

/**
 * The messages of a dead-letter queue, read without consuming them: each is held while the list is
 * read (so none is counted twice) and then made visible again.
 */
export async function listDeadLetters(client: SQSClient, dlqUrl: string, max = Number.POSITIVE_INFINITY): Promise<DeadLetter[]> {
  const held: Message[] = [];
  try {
    while (held.length < max) {
      const messages = await receive(client, dlqUrl);
      if (messages.length === 0) break;
      held.push(...messages);
    }
  } finally {
    await release(client, dlqUrl, held);
  }
  return held.slice(0, max).map(describe);
}

export interface RedriveResult {
  moved: number;
  /** Refused by the work queue; left in the dead-letter queue. */
  failed: number;
}

/**
 * Moves dead letters back to their work queue in batches: receive, send, and delete from the
 * dead-letter queue only the messages the work queue accepted, so a failure at any point leaves a
 * message in one queue or (after a crash between send and delete) in both — never in neither.
 * It stops after the messages that were waiting when it started, so a message that fails again and
 * returns meanwhile is not driven round in circles.
 */
export async function redrive(client: SQSClient, pair: QueuePair, max?: number): Promise<RedriveResult> {
  const limit = max ?? (await waitingCount(client, pair.dlqUrl));
  const result: RedriveResult = { moved: 0, failed: 0 };
  const seen = new Set<string>();
  while (result.moved + result.failed < limit) {
    const received = await receive(client, pair.dlqUrl);
    if (received.length === 0) break;
    const fresh = received.filter((message) => !seen.has(message.MessageId ?? "")).slice(0, limit - result.moved - result.failed);
    const extra = received.filter((message) => !fresh.includes(message));
    if (extra.length > 0) await release(client, pair.dlqUrl, extra);
    if (fresh.length === 0) break;
    for (const message of fresh) seen.add(message.MessageId ?? "");
    const sent = await client.send(
      new SendMessageBatchCommand({
        QueueUrl: pair.queueUrl,
        Entries: fresh.map((message, index) => ({
          Id: String(index),
          MessageBody: message.Body ?? "",
          ...(message.MessageAttributes && Object.keys(message.MessageAttributes).length > 0 ? { MessageAttributes: message.MessageAttributes } : {}),
        })),
      }),
    );
    const accepted = new Set((sent.Successful ?? []).map((entry) => entry.Id));
    const moved = fresh.filter((_, index) => accepted.has(String(index)));
    const refused = fresh.filter((_, index) => !accepted.has(String(index)));
    if (moved.length > 0) {
      await client.send(
        new DeleteMessageBatchCommand({
          QueueUrl: pair.dlqUrl,
          Entries: moved.map((message, index) => ({ Id: String(index), ReceiptHandle: message.ReceiptHandle })),
        }),
      );
    }
    if (refused.length > 0) await release(client, pair.dlqUrl, refused);
    result.moved += moved.length;
    result.failed += refused.length;
  }
  return result;
}

function queueName(value: string | undefined): QueueName | undefined {
  if (value === undefined) return undefined;
  if (!(value in QUEUES)) throw new Error(`--queue must be one of ${Object.keys(QUEUES).join(", ")}`);
  return value as QueueName;
}

function selectQueues(values: { queue?: string; "queue-url"?: string; "dlq-url"?: string; region?: string }): QueuePair[] {
  const name = queueName(values.queue);
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = "true";
  if (values["queue-url"] || values["dlq-url"]) {
    if (!values["queue-url"] || !values["dlq-url"]) throw new Error("--queue-url and --dlq-url go together");
    if (values.region) process.env.AWS_REGION = values.region;
    return [{ name: name ?? "queue", queueUrl: values["queue-url"], dlqUrl: values["dlq-url"] }];
  }
  const stack = useRunningLocalStack();
  const names = name ? [name] : (Object.keys(QUEUES) as QueueName[]);
  return names.map((queue) => ({ name: queue, queueUrl: stack.resources.queues[queue].url, dlqUrl: stack.resources.queues[queue].dlqUrl }));
}

export async function run(argv: string[], print: (line: string) => void = console.log): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      queue: { type: "string" },
      "queue-url": { type: "string" },
      "dlq-url": { type: "string" },
      region: { type: "string" },
      max: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  const [command] = positionals;
  if (values.help || (command !== "list" && command !== "redrive")) {
    print(USAGE);
    return values.help ? 0 : 2;
  }
  const max = values.max === undefined ? undefined : Number(values.max);
  if (max !== undefined && (!Number.isInteger(max) || max <= 0)) throw new Error("--max must be a positive integer");
  for (const pair of selectQueues(values)) {
    if (command === "list") {
      const letters = await listDeadLetters(sqs(), pair.dlqUrl, max);
      print(`${pair.name}: ${letters.length} message(s) in the dead-letter queue`);
      for (const letter of letters) print(`  ${letter.messageId}  received ${letter.receiveCount}×  sent ${letter.sentAt ?? "?"}  ${letter.body}`);
    } else {
      const result = await redrive(sqs(), pair, max);
      print(`${pair.name}: moved ${result.moved} message(s) back to the work queue${result.failed > 0 ? `, ${result.failed} refused (still in the dead-letter queue)` : ""}`);
    }
  }
  return 0;
}

runWhenMain(import.meta.url, run);
