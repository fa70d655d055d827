import { GetQueueAttributesCommand } from "@aws-sdk/client-sqs";
import type { TestApi } from "./local-stack.ts";

type QueueName = keyof ReturnType<TestApi["stack"]>["resources"]["queues"];

const PENDING = ["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible", "ApproximateNumberOfMessagesDelayed"] as const;

/**
 * Waits until the workers have handled every message of the named queues: none visible, in flight
 * or delayed, so all the work a test set off (follow-up steps and retries included) is over. What
 * a test used to sleep for ("give any step in flight the time to finish") it waits for instead.
 * `delayed: false` leaves delayed messages out: a step that stepped aside for another delivery
 * leaves a copy of its message due a minute later (process-document.ts), which finds its work done
 * or gone; a test that only needs the work in flight to be over need not wait for it.
 */
export async function queuesDrained(
  api: TestApi,
  names: readonly QueueName[] = ["ingest", "delete", "mail"],
  { timeoutMs = 60_000, delayed = true }: { timeoutMs?: number; delayed?: boolean } = {},
): Promise<void> {
  const attributes = delayed ? PENDING : PENDING.filter((attribute) => attribute !== "ApproximateNumberOfMessagesDelayed");
  const { clients, resources } = api.stack();
  const deadline = Date.now() + timeoutMs;
  let quietPolls = 0;
  while (Date.now() < deadline) {
    const counts = await Promise.all(
      names.map(async (name) => {
        const { Attributes } = await clients.sqs.send(new GetQueueAttributesCommand({ QueueUrl: resources.queues[name].url, AttributeNames: [...attributes] }));
        return attributes.reduce((sum, attribute) => sum + Number(Attributes?.[attribute] ?? 0), 0);
      }),
    );
    // Twice in a row: a message deleted between two polls is done, one received in between is not yet.
    quietPolls = counts.every((count) => count === 0) ? quietPolls + 1 : 0;
    if (quietPolls >= 2) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`the ${names.join(", ")} queue(s) did not drain within ${timeoutMs} ms`);
}
