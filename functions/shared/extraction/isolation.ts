import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import { DOCUMENT_FORMATS, type DocumentFormatId } from "../domain/catalogs/document-formats.ts";
import { config } from "../platform/env.ts";
import { faultPoint } from "../platform/fault-points.ts";
import { DocumentExtractionError, EXTRACTION_DEADLINE_GRACE_MS, EXTRACTION_THREADS, tooSlow } from "./limits.ts";
import type { ExtractedDocument, ExtractionOptions } from "./types.ts";

/**
 * Every document format is read in a worker thread of its own with a capped heap and a wall-clock
 * limit, so a file that defeats the budgets (limits.ts) ends its own extraction, never the process:
 * the ingest worker's other documents, and locally the gateway that shares the process, carry on.
 * A thread that breaches either limit is terminated and its document fails with the reason; a
 * thread that finished normally is kept for the next document (it keeps its OCR engine, which
 * takes about a second to start). At most EXTRACTION_THREADS run at once, which with their heap
 * cap keeps what they can hold within the function's memory.
 *
 * The heap cap does not see memory outside V8's heap: decoded images (pdf.js keeps a page's images
 * as typed arrays; a 5.8 MB PDF painting eight 25-megapixel images on one page decodes to 2.2 GB)
 * and the OCR engine's WebAssembly memory. So while a thread works, the process's resident memory
 * is watched too, and past config.extractionRssLimitMb the thread that pushed it there is
 * terminated the same way.
 */

/** How often the process's resident memory is read while a thread works. */
const RSS_CHECK_MS = 50;

/**
 * A thread stopped at the memory limit leaves part of what it used resident after it has ended
 * (measured: about 250 of 300 MB), so the next document may start above the limit. A document is
 * stopped only when it has itself added more than this since it started; one that merely inherits
 * the resident memory is read (a PDF stream bomb queued after an image bomb, the job's ordinary
 * documents) and still refused by its own budgets.
 */
const OWN_GROWTH_BEFORE_BLAME = 64 * 1024 * 1024;

/** The file name of the thread's entry in a bundled asset, beside index.mjs (lib/bundling.ts writes it). */
export const EXTRACTION_THREAD_BUNDLE_NAME = "extraction-thread";

interface Job {
  id: number;
  format: DocumentFormatId;
  bytes: Uint8Array;
  options: ExtractionOptions;
}

type Reply = { id: number; started: true } | { id: number; result: ExtractedDocument } | { id: number; error: { message: string; parse: boolean } };

class ExtractionThread {
  readonly worker: Worker;
  private pending: { id: number; label: string; settle: (outcome: { result: ExtractedDocument } | { error: Error }) => void } | null = null;
  dead = false;

  constructor(
    private readonly onIdle: (thread: ExtractionThread) => void,
    readonly heapMb: number,
  ) {
    this.worker = startThread(heapMb);
    this.worker.on("message", (reply: Reply) => {
      if (this.pending?.id !== reply.id) return;
      // The extractor is loaded and reads the file from here on: tests wait for this, not for a time.
      if ("started" in reply) faultPoint("extraction:reading").catch(() => undefined);
      else if ("result" in reply) this.finish({ result: reply.result });
      else this.finish({ error: reply.error.parse ? new DocumentExtractionError(reply.error.message) : new Error(reply.error.message) });
    });
    this.worker.on("error", (error: Error & { code?: string }) => {
      this.dead = true;
      if (!this.pending) return;
      const label = this.pending.label;
      this.finish({
        error:
          error.code === "ERR_WORKER_OUT_OF_MEMORY"
            ? new DocumentExtractionError(
                `the ${label} file needs more than the ${this.heapMb} MB of memory one document may use while it is read (too large when decompressed: a decompression bomb or an unusually large document)`,
              )
            : new Error(`the extraction thread failed: ${error.message}`),
      });
    });
    this.worker.on("exit", () => {
      this.dead = true;
      if (this.pending) this.finish({ error: new Error("the extraction thread stopped unexpectedly") });
    });
  }

  /** Settles the job at work and frees the thread (a dead one is ended by the pool). */
  private finish(outcome: { result: ExtractedDocument } | { error: Error }): void {
    const pending = this.pending;
    if (!pending) return;
    this.pending = null;
    pending.settle(outcome);
    this.onIdle(this);
  }

  /** Ends the thread at once (terminate() stops JavaScript even inside a synchronous parse) and fails the job. */
  private stop(id: number, error: DocumentExtractionError): void {
    if (this.pending?.id !== id) return;
    this.dead = true;
    void this.worker.terminate();
    this.finish({ error });
  }

  run(job: Job, graceMs: number, transfer: boolean): Promise<ExtractedDocument> {
    const label = DOCUMENT_FORMATS[job.format].label;
    return new Promise<ExtractedDocument>((resolve, reject) => {
      const waitMs = Math.max(0, job.options.limits.deadlineMs - Date.now()) + graceMs;
      const timer = setTimeout(
        () => this.stop(job.id, tooSlow(label)),
        waitMs,
      );
      const rssLimit = config.extractionRssLimitMb() * 1024 * 1024;
      const rssAtStart = process.memoryUsage.rss();
      const watch = setInterval(() => {
        const rss = process.memoryUsage.rss();
        if (rss <= rssLimit || rss - rssAtStart <= OWN_GROWTH_BEFORE_BLAME) return;
        this.stop(
          job.id,
          new DocumentExtractionError(
            `the ${label} file needed more memory than the worker has while it was read (${Math.round(rss / 1048576)} MB in use; too large when decompressed: a decompression bomb or an unusually large document)`,
          ),
        );
      }, RSS_CHECK_MS);
      this.pending = {
        id: job.id,
        label,
        settle: (outcome) => {
          clearTimeout(timer);
          clearInterval(watch);
          if ("result" in outcome) resolve(outcome.result);
          else reject(outcome.error);
        },
      };
      this.worker.ref();
      // Moved to the thread when the caller is done with them and they own their whole buffer (a
      // Buffer may be a view into a shared pool); copied otherwise.
      const { bytes } = job;
      const whole = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength && bytes.buffer instanceof ArrayBuffer;
      const sent = transfer && whole ? bytes : new Uint8Array(bytes);
      try {
        this.worker.postMessage({ id: job.id, format: job.format, bytes: sent, options: job.options }, [sent.buffer as ArrayBuffer]);
      } catch (error) {
        // Options that cannot be cloned: the thread never saw the job and is free again.
        this.finish({ error: error as Error });
      }
    });
  }
}

function startThread(heapMb: number): Worker {
  const resourceLimits = { maxOldGenerationSizeMb: heapMb };
  if (process.env.KIS_DEPLOYED_BUNDLE === "true") {
    // Bundled with code splitting, this code sits in index.mjs or in chunks/; the thread's entry is beside index.mjs.
    const entry = new URL(`${import.meta.url.includes("/chunks/") ? "../" : "./"}${EXTRACTION_THREAD_BUNDLE_NAME}.mjs`, import.meta.url);
    return new Worker(entry, { resourceLimits });
  }
  // Unbundled (the local stack, tests) the thread reads TypeScript, through the same loader the process uses.
  const tsx = pathToFileURL(join(dirname(createRequire(import.meta.url).resolve("tsx/package.json")), "dist/esm/api/index.mjs")).href;
  const entry = new URL("./thread.ts", import.meta.url).href;
  const code = `import(${JSON.stringify(tsx)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry)}); })`;
  return new Worker(code, { eval: true, resourceLimits });
}

const idle: ExtractionThread[] = [];
const waiting: (() => void)[] = [];
let running = 0;
let nextId = 1;

function release(thread: ExtractionThread): void {
  if (thread.dead) {
    // The slot frees once the thread has ended and its memory is returned: a document stopped at
    // the process's memory limit would otherwise leave its decoded images resident while the next
    // document starts, and that one would be stopped for memory it never used.
    void thread.worker.terminate().finally(freeSlot);
    return;
  }
  // An idle thread must not keep the process alive (tests, the CLI).
  thread.worker.unref();
  idle.push(thread);
  freeSlot();
}

function freeSlot(): void {
  running -= 1;
  waiting.shift()?.();
}

async function acquire(): Promise<ExtractionThread> {
  while (running >= EXTRACTION_THREADS) await new Promise<void>((resolve) => waiting.push(resolve));
  running += 1;
  const heapMb = config.extractionHeapMb();
  let thread = idle.pop();
  while (thread && (thread.dead || thread.heapMb !== heapMb)) {
    void thread.worker.terminate();
    thread = idle.pop();
  }
  if (thread) return thread;
  try {
    return new ExtractionThread(release, heapMb);
  } catch (error) {
    // The slot taken above goes back, or every later document would wait for it forever.
    freeSlot();
    throw error;
  }
}

/**
 * Extracts one document in an extraction thread (see above); a breach of its limits is a
 * DocumentExtractionError. `graceMs`: how long past `options.limits.deadlineMs` the thread is given;
 * `transfer`: the caller does not read `bytes` again, so they move to the thread instead of being
 * copied (a 200 MB PDF would otherwise be held twice in the process while it is read).
 */
export async function extractIsolated(
  format: DocumentFormatId,
  bytes: Uint8Array,
  options: ExtractionOptions,
  { graceMs = EXTRACTION_DEADLINE_GRACE_MS, transfer = false }: { graceMs?: number; transfer?: boolean } = {},
): Promise<ExtractedDocument> {
  const thread = await acquire();
  return thread.run({ id: nextId++, format, bytes, options }, graceMs, transfer);
}

/** Ends every idle thread (tests, a CLI that wants to exit promptly). */
export async function shutdownExtractionThreads(): Promise<void> {
  await Promise.all(idle.splice(0).map((thread) => thread.worker.terminate()));
}
