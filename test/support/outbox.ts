import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { GetQueueAttributesCommand } from "@aws-sdk/client-sqs";
import type { TestApi } from "./local-stack.ts";

export interface SentMail {
  to: string;
  subject: string;
  text: string;
}

/** The e-mails the local outbox holds for an address, oldest first. */
export async function mailTo(api: TestApi, address: string): Promise<SentMail[]> {
  const folder = api.stack().outboxDir;
  const files = (await readdir(folder).catch(() => [] as string[])).sort();
  const mails = await Promise.all(files.map(async (file) => JSON.parse(await readFile(join(folder, file), "utf8")) as SentMail & { sentAt: string }));
  return mails.filter((mail) => mail.to === address);
}

/**
 * Waits until the mail worker has handled every queued sign-in request (none visible or in flight),
 * so what the outbox holds is final: mail is sent after the visitor's answer, not during it.
 */
export async function mailQueueDrained(api: TestApi, timeoutMs = 30_000): Promise<void> {
  const { clients, resources } = api.stack();
  const deadline = Date.now() + timeoutMs;
  let quietPolls = 0;
  while (Date.now() < deadline) {
    const { Attributes } = await clients.sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: resources.queues.mail.url, AttributeNames: ["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"] }),
    );
    const pending = Number(Attributes?.ApproximateNumberOfMessages ?? 0) + Number(Attributes?.ApproximateNumberOfMessagesNotVisible ?? 0);
    // Twice in a row: a message deleted between two polls is done, one received in between is not yet.
    quietPolls = pending === 0 ? quietPolls + 1 : 0;
    if (quietPolls >= 2) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`the mail queue did not drain within ${timeoutMs} ms`);
}

/** The mails an address got once every queued request is handled. */
export async function mailAfterQueue(api: TestApi, address: string): Promise<SentMail[]> {
  await mailQueueDrained(api);
  return mailTo(api, address);
}
