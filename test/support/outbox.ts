import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import type { TestApi } from "./local-stack.ts";
import { queuesDrained } from "./queues.ts";

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
export function mailQueueDrained(api: TestApi, timeoutMs = 30_000): Promise<void> {
  return queuesDrained(api, ["mail"], { timeoutMs });
}

/** The mails an address got once every queued request is handled. */
export async function mailAfterQueue(api: TestApi, address: string): Promise<SentMail[]> {
  await mailQueueDrained(api);
  return mailTo(api, address);
}
