import { BatchProcessor, EventType, processPartialResponse } from "@aws-lambda-powertools/batch";
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from "aws-lambda";
import type * as z from "./validation.ts";
import { config } from "./env.ts";
import { logger } from "./logger.ts";
import { formatIssue } from "./validation.ts";

export interface Delivery<M> {
  message: M;
  /** 1 on the first delivery. */
  receiveCount: number;
  /** True when a failure now sends the message to the dead-letter queue. */
  lastAttempt: boolean;
  context: Context;
}

export interface WorkerSpec<S extends z.ZodMiniType> {
  schema: S;
  handle: (delivery: Delivery<z.output<S>>) => Promise<void>;
  /**
   * Called when the last allowed delivery fails, before the message moves to the dead-letter queue:
   * the place to mark the record FAILED with the reason, so nothing waits forever on dead work.
   */
  onFinalFailure?: (message: z.output<S>, reason: string) => Promise<void>;
}

/**
 * The one shape of every SQS worker: records are handled in parallel and failures are reported one
 * by one (partial batch response), so a poison message never drags healthy ones back to the queue.
 */
export function sqsWorker<S extends z.ZodMiniType>(spec: WorkerSpec<S>) {
  const handleRecord = async (record: SQSRecord, context: Context) => {
    const parsed = spec.schema.safeParse(safeJson(record.body));
    if (!parsed.success) throw new Error(`malformed work message: ${formatIssue(parsed.error.issues[0])}`);
    const receiveCount = Number(record.attributes?.ApproximateReceiveCount ?? "1");
    const lastAttempt = receiveCount >= config.maxReceiveCount();
    try {
      await spec.handle({ message: parsed.data, receiveCount, lastAttempt, context });
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      logger.warn("work message failed", { messageId: record.messageId, receiveCount, lastAttempt, reason });
      if (lastAttempt && spec.onFinalFailure) await spec.onFinalFailure(parsed.data, reason);
      throw error;
    }
  };
  return async (event: SQSEvent, context: Context): Promise<SQSBatchResponse> => {
    // Every log line of the batch names this function and request, as the HTTP stack's do.
    logger.addContext(context);
    // A processor per invocation: outside Lambda's invoke store it keeps the batch's records and
    // failures on itself, and the local stack runs several invocations of one handler at once
    // (a shared one reported other batches' failures as successes, deleting unfinished messages).
    return processPartialResponse(event, handleRecord, new BatchProcessor(EventType.SQS), { context, throwOnFullBatchFailure: false });
  };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
