import { deleteMessage } from "../shared/queue/messages.ts";
import { sqsWorker } from "../shared/worker/sqs-worker.ts";
import { failDeletion, runDeletion } from "../shared/workflows/deletion/cascades.ts";

/**
 * Deletion cascades. Every step is idempotent: a repeated or resumed message finishes the work, and
 * a cascade too long for one invocation continues in a follow-up message.
 */
export const handler = sqsWorker({
  schema: deleteMessage,
  handle: async ({ message, context }) => {
    await runDeletion(message, { remainingMs: () => context.getRemainingTimeInMillis() });
  },
  onFinalFailure: async (message, reason) => {
    // A namespace stays DELETING; the reconciler queues its cascade again.
    if (message.kind === "job") await failDeletion("job", message.jobId, reason);
    if (message.kind === "document") await failDeletion("document", message.documentId, reason);
  },
});
