import { afterEach, describe, expect, it } from "vitest";
import { crashTimes, setFaultInjector } from "../../functions/shared/fault-points.ts";
import { ingestText, newNamespace, waitForJob } from "../support/ingestion.ts";
import { useLocalStack } from "../support/local-stack.ts";

const api = useLocalStack();

afterEach(() => setFaultInjector(null));

/** Every structured log line the process writes (Powertools writes warnings and errors to stderr). */
async function captureLogLines(run: () => Promise<void>): Promise<Record<string, unknown>[]> {
  const written: string[] = [];
  const streams = [process.stdout, process.stderr];
  const originals = streams.map((stream) => stream.write.bind(stream));
  streams.forEach((stream, index) => {
    stream.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
      written.push(typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8"));
      return (originals[index] as (...args: unknown[]) => boolean)(chunk, ...rest);
    }) as typeof stream.write;
  });
  try {
    await run();
  } finally {
    streams.forEach((stream, index) => {
      stream.write = originals[index]!;
    });
  }
  return written
    .join("")
    .split("\n")
    .flatMap((line) => {
      try {
        const parsed = JSON.parse(line) as unknown;
        return parsed && typeof parsed === "object" ? [parsed as Record<string, unknown>] : [];
      } catch {
        return [];
      }
    });
}

describe("local logs", () => {
  it("name the worker that wrote them, even while HTTP functions run in the same process", async () => {
    const ns = await newNamespace(api);
    const lines = await captureLogLines(async () => {
      setFaultInjector(crashTimes("document:pre-processing", 2).injector);
      const job = await ingestText(ns, "A document whose first two deliveries crash.");
      // HTTP functions keep running (and setting their own Lambda context) while the worker retries.
      let polling = true;
      const traffic = (async () => {
        while (polling) {
          await ns.call("GET", `/ingest-jobs/${job.id}`);
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      })();
      await waitForJob(ns, job.id);
      polling = false;
      await traffic;
    });
    const workerLines = lines.filter((line) => line.message === "work message failed");
    expect(workerLines.length).toBeGreaterThanOrEqual(2);
    for (const line of workerLines) expect(line.function_name).toBe("IngestWorker");
  });
});
