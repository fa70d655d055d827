import { setTimeout as sleep } from "node:timers/promises";
import { TransactWriteCommand, type TransactWriteCommandInput } from "@aws-sdk/lib-dynamodb";
import { dynamo } from "./client.ts";
import { cancellationReasons } from "./conditions.ts";

export type TransactItems = NonNullable<TransactWriteCommandInput["TransactItems"]>;

/**
 * Cancellation reasons that say nothing about the data, only that the moment was bad: another
 * transaction held one of the items, or capacity ran short. `None` marks the actions that passed.
 */
const TRANSIENT_REASONS = new Set(["None", "TransactionConflict", "ThrottlingError", "ProvisionedThroughputExceeded"]);

const MAX_ATTEMPTS = 8;
const BASE_DELAY_MS = 50;
const MAX_DELAY_MS = 2_000;

/**
 * True for a write DynamoDB refused only because of concurrent work on the same items: a transaction
 * cancelled for conflicts or throttling alone, or a single-item write that met an ongoing
 * transaction (TransactionConflictException). The SDK retries neither (it retries
 * TransactionInProgressException, a repeated ClientRequestToken still running, by itself).
 */
export function isWriteConflict(error: unknown): boolean {
  const name = (error as { name?: string } | null)?.name;
  if (name === "TransactionConflictException") return true;
  if (name !== "TransactionCanceledException") return false;
  const reasons = cancellationReasons(error);
  return reasons.some((reason) => reason !== "None") && reasons.every((reason) => TRANSIENT_REASONS.has(reason));
}

/**
 * Runs a write again, with jittered exponential backoff, while DynamoDB refuses it for a conflict
 * (at most MAX_ATTEMPTS tries, about five seconds of waiting); anything else, and a conflict that
 * outlasts the attempts, is thrown. A cancelled transaction changed nothing, so each try is a new
 * request (the SDK gives each its own ClientRequestToken, reused only by its own retries).
 */
export async function retryingConflicts<T>(write: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await write();
    } catch (error) {
      if (attempt >= MAX_ATTEMPTS || !isWriteConflict(error)) throw error;
      await sleep(Math.random() * Math.min(MAX_DELAY_MS, BASE_DELAY_MS * 2 ** attempt));
    }
  }
}

/**
 * Every TransactWriteItems of the service goes through here. A refusal comes back as the SDK's
 * error: `isConditionFailure` tells a failed condition (another writer moved first) from the rest.
 */
export async function transactWrite(items: TransactItems): Promise<void> {
  await retryingConflicts(() => dynamo().send(new TransactWriteCommand({ TransactItems: items })));
}
