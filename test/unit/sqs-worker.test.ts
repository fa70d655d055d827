import type { Context, SQSEvent, SQSRecord } from "aws-lambda";
import { describe, expect, it } from "vitest";
import { sqsWorker } from "../../functions/shared/worker/sqs-worker.ts";
import * as z from "../../functions/shared/platform/zod.ts";

const context = { functionName: "WorkerUnderTest", awsRequestId: "r-1", getRemainingTimeInMillis: () => 60_000 } as unknown as Context;

function record(messageId: string, body: string, receiveCount = 1): SQSRecord {
  return {
    messageId,
    receiptHandle: `handle-${messageId}`,
    body,
    attributes: { ApproximateReceiveCount: String(receiveCount) },
    messageAttributes: {},
    md5OfBody: "",
    eventSource: "aws:sqs",
    eventSourceARN: "arn:aws:sqs:us-east-1:000000000000:work",
    awsRegion: "us-east-1",
  } as unknown as SQSRecord;
}

function eventOf(...records: SQSRecord[]): SQSEvent {
  return { Records: records };
}

const message = z.object({ id: z.string() });

describe("sqsWorker", () => {
  it("reports only the records that failed, so healthy ones leave the queue", async () => {
    const handled: string[] = [];
    const worker = sqsWorker({
      schema: message,
      handle: async ({ message }) => {
        if (message.id === "bad") throw new Error("cannot do this one");
        handled.push(message.id);
      },
    });
    const result = await worker(eventOf(record("m1", '{"id":"a"}'), record("m2", '{"id":"bad"}'), record("m3", '{"id":"c"}')), context);
    expect(result.batchItemFailures).toEqual([{ itemIdentifier: "m2" }]);
    expect(handled.sort()).toEqual(["a", "c"]);
  });

  it("fails a malformed message (not JSON, or not the schema) without calling the handler", async () => {
    let calls = 0;
    const worker = sqsWorker({ schema: message, handle: async () => void (calls += 1) });
    const result = await worker(eventOf(record("m1", "{oops"), record("m2", '{"id":5}'), record("m3", '{"id":"fine"}')), context);
    expect(result.batchItemFailures.map((failure) => failure.itemIdentifier).sort()).toEqual(["m1", "m2"]);
    expect(calls).toBe(1);
  });

  it("calls onFinalFailure with the reason on the last allowed delivery only", async () => {
    const finals: { id: string; reason: string }[] = [];
    const deliveries: { receiveCount: number; lastAttempt: boolean }[] = [];
    const worker = sqsWorker({
      schema: message,
      handle: async ({ receiveCount, lastAttempt }) => {
        deliveries.push({ receiveCount, lastAttempt });
        throw new Error("still broken");
      },
      onFinalFailure: async (failed, reason) => void finals.push({ id: failed.id, reason }),
    });
    await worker(eventOf(record("m1", '{"id":"x"}', 4)), context);
    expect(finals).toEqual([]);
    const result = await worker(eventOf(record("m1", '{"id":"x"}', 5)), context);
    expect(result.batchItemFailures).toEqual([{ itemIdentifier: "m1" }]);
    expect(finals).toEqual([{ id: "x", reason: "still broken" }]);
    expect(deliveries).toEqual([
      { receiveCount: 4, lastAttempt: false },
      { receiveCount: 5, lastAttempt: true },
    ]);
  });
});
