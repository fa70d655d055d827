import { mailMessage } from "../shared/queue/messages.ts";
import { sqsWorker } from "../shared/worker/sqs-worker.ts";
import { deliverSignIn } from "../shared/workflows/hosted/sign-in.ts";

/**
 * Sign-in mails of protected hosted pages, sent here rather than while the visitor waits, so the
 * page answers every address the same. Failures to send are logged and counted by deliverSignIn;
 * only a failure to read or write the table is retried.
 */
export const handler = sqsWorker({
  schema: mailMessage,
  handle: async ({ message }) => {
    await deliverSignIn(message);
  },
});
