import { ingestMessage } from "../shared/queue/messages.ts";
import { sqsWorker } from "../shared/worker/sqs-worker.ts";
import { startJobRun } from "../shared/workflows/ingestion/run-job.ts";
import { processDocument } from "../shared/workflows/ingestion/process-document.ts";
import { failJobRun, failDocument } from "../shared/workflows/ingestion/settlement.ts";

/**
 * Ingestion: a `job` message creates a run's documents and fans out one `document` message each; a
 * `document` message parses, chunks, embeds and indexes one document, continuing itself in a new
 * message when the invocation's time runs short.
 */
export const handler = sqsWorker({
  schema: ingestMessage,
  handle: async ({ message, context }) => {
    if (message.kind === "job") return startJobRun(message.jobId, message.runId);
    return processDocument(message.documentId, message.runId, { remainingMs: () => context.getRemainingTimeInMillis() });
  },
  onFinalFailure: async (message, reason) => {
    if (message.kind === "job") return failJobRun(message.jobId, message.runId, `ingestion failed repeatedly: ${reason}`);
    return failDocument(message.documentId, message.runId, `processing failed repeatedly: ${reason}`);
  },
});
