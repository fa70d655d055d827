import { deleteMessage } from "../shared/messages.ts";
import { sqsWorker } from "../shared/worker.ts";
import { deleteNamespaceCascade } from "../shared/deletion.ts";

/** Deletion cascades. Every step is idempotent: a repeated or resumed message finishes the work. */
export const handler = sqsWorker({
  schema: deleteMessage,
  handle: async ({ message }) => {
    switch (message.kind) {
      case "namespace":
        await deleteNamespaceCascade(message.namespaceId);
        return;
      case "job":
      case "document":
        throw new Error(`deletion of a ${message.kind} is not handled by this version`);
    }
  },
});
