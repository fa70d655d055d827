import { deleteMessage } from "../shared/queue/messages.ts";
import { enqueue } from "../shared/queue/send.ts";
import { sqsWorker } from "../shared/worker/sqs-worker.ts";
import { deleteDocumentCascade, deleteJobCascade, deleteNamespaceCascade, failDeletion } from "../shared/workflows/deletion/cascades.ts";

/**
 * Deletion cascades. Every step is idempotent: a repeated or resumed message finishes the work, and
 * a cascade too long for one invocation continues in a follow-up message.
 */
export const handler = sqsWorker({
  schema: deleteMessage,
  handle: async ({ message, context }) => {
    const budget = { remainingMs: () => context.getRemainingTimeInMillis() };
    let result: "done" | "continue" = "done";
    if (message.kind === "namespace") result = await deleteNamespaceCascade(message.namespaceId, budget);
    if (message.kind === "job") result = await deleteJobCascade(message.jobId, budget);
    if (message.kind === "document") await deleteDocumentCascade(message.documentId);
    if (result === "continue") await enqueue("delete", message);
  },
  onFinalFailure: async (message, reason) => {
    // A namespace stays DELETING; the reconciler queues its cascade again.
    if (message.kind === "job") await failDeletion("job", message.jobId, reason);
    if (message.kind === "document") await failDeletion("document", message.documentId, reason);
  },
});
