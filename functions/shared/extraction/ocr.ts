import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Worker as TesseractWorker } from "tesseract.js";
import { DocumentExtractionError } from "./limits.ts";
import type { ExtractionLimits } from "./types.ts";

/**
 * OCR with tesseract.js (Tesseract compiled to WebAssembly, run in a worker thread), fully
 * offline: the trained models come from `@tesseract.js-data/<lang>` packages resolved next to the
 * code (node_modules here, the Lambda asset's node_modules when bundled; see BUNDLING.md), never
 * from tesseract.js's default CDN. One worker per language is kept for the life of the process, as
 * starting one (WebAssembly compile plus model load) costs about a second.
 */

/** Spec language codes (domain/ingest-config.ts) → Tesseract model names. */
const TESSERACT_LANGUAGES: Record<string, string> = {
  af: "afr", am: "amh", ar: "ara", bg: "bul", bn: "ben", ca: "cat", cs: "ces", cy: "cym", da: "dan", de: "deu",
  en: "eng", es: "spa", et: "est", fa: "fas", fi: "fin", fr: "fra", ga: "gle", gl: "glg", he: "heb", hi: "hin",
  hr: "hrv", hu: "hun", id: "ind", is: "isl", it: "ita", jp: "jpn", kr: "kor", lt: "lit", lv: "lav", mk: "mkd",
  ms: "msa", mt: "mlt", ne: "nep", nl: "nld", no: "nor", pl: "pol", pt: "por", ro: "ron", ru: "rus", sk: "slk",
  sl: "slv", sr: "srp", sv: "swe", sw: "swa", ta: "tam", te: "tel", th: "tha", tl: "tgl", tr: "tur", uk: "ukr",
  ur: "urd", vi: "vie", zh: "chi_sim",
};

/** The integer-quantised LSTM models: a third of the size of the full ones, same accuracy class, and all the LSTM engine needs. */
const MODEL_FOLDER = "4.0.0_best_int";
/** Tesseract's OEM.LSTM_ONLY. */
const LSTM_ONLY = 1;

export interface OcrLanguage {
  /** Tesseract model name actually used. */
  model: string;
  /** Folder holding `<model>.traineddata.gz`. */
  dataDir: string;
  /** Set when the requested language could not be honoured. */
  note?: string;
}

function modelDir(model: string): string | undefined {
  try {
    const packageJson = fileURLToPath(import.meta.resolve(`@tesseract.js-data/${model}/package.json`));
    const dir = join(dirname(packageJson), MODEL_FOLDER);
    return existsSync(join(dir, `${model}.traineddata.gz`)) ? dir : undefined;
  } catch {
    return undefined;
  }
}

/** The model for a spec language code: its own when its package is installed, else English with a note saying so. */
export function ocrLanguage(languageCode: string | undefined): OcrLanguage {
  const wanted = TESSERACT_LANGUAGES[languageCode ?? "en"] ?? "eng";
  const dir = modelDir(wanted);
  if (dir) return { model: wanted, dataDir: dir };
  const english = modelDir("eng");
  if (!english) throw new OcrUnavailableError("no OCR model is installed (@tesseract.js-data/eng is missing)");
  return {
    model: "eng",
    dataDir: english,
    note: `OCR ran in English: no OCR model for language "${languageCode}" ships with this deployment`,
  };
}

/** OCR could not run at all (missing model, worker failed to start); formats turn it into a note or a parse error. */
export class OcrUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "OcrUnavailableError";
  }
}

const workers = new Map<string, Promise<TesseractWorker>>();
/** Recognitions run one at a time per process: the worker is single-threaded and Lambda has few cores. */
let queue: Promise<unknown> = Promise.resolve();

async function workerFor(language: OcrLanguage): Promise<TesseractWorker> {
  let worker = workers.get(language.model);
  if (!worker) {
    worker = (async () => {
      const tesseract = await import("tesseract.js");
      const createWorker = tesseract.createWorker ?? (tesseract as unknown as { default: typeof tesseract }).default.createWorker;
      return createWorker(language.model, LSTM_ONLY, {
        langPath: language.dataDir,
        gzip: true,
        // The default caches the unpacked model in the working directory, read-only on Lambda.
        cacheMethod: "none",
        // Without a handler tesseract.js also throws a failed job's error from its message
        // listener, an uncaught exception that would kill the process; the job's promise rejects anyway.
        errorHandler: () => undefined,
      });
    })();
    workers.set(language.model, worker);
    worker.catch(() => workers.delete(language.model));
  }
  try {
    return await worker;
  } catch (error) {
    throw new OcrUnavailableError(`the OCR engine did not start: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/**
 * Text in an encoded image (PNG, JPEG, WebP, BMP, PNM; TIFF is decoded first by the caller).
 * Throws DocumentExtractionError at the deadline (the worker is terminated so the next call starts
 * clean), OcrUnavailableError when the engine cannot run, and Error when the image is unreadable.
 */
export function recognize(image: Uint8Array, language: OcrLanguage, limits: ExtractionLimits): Promise<string> {
  const run = queue.then(async () => {
    const worker = await workerFor(language);
    const remaining = limits.deadlineMs - Date.now();
    if (remaining <= 0) throw new DocumentExtractionError("the time limit for one document was reached before OCR could finish");
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new DocumentExtractionError("the time limit for one document was reached during OCR")), remaining);
    });
    try {
      const result = await Promise.race([worker.recognize(Buffer.from(image.buffer, image.byteOffset, image.byteLength)), timeout]);
      return result.data.text;
    } catch (error) {
      if (error instanceof DocumentExtractionError) {
        workers.delete(language.model);
        await worker.terminate().catch(() => undefined);
        throw error;
      }
      throw new Error(typeof error === "string" ? error : error instanceof Error ? error.message : String(error));
    } finally {
      clearTimeout(timer);
    }
  });
  queue = run.catch(() => undefined);
  return run;
}

/** Stops the OCR workers (tests, benchmarks, scripts: a live worker thread keeps Node running). */
export async function shutdownOcr(): Promise<void> {
  const running = [...workers.values()];
  workers.clear();
  await Promise.all(running.map(async (worker) => (await worker.catch(() => undefined))?.terminate()));
}

export interface RawImage {
  width: number;
  height: number;
  /** 1 (gray), 3 (RGB) or 4 (RGBA) bytes per pixel, rows top to bottom. */
  channels: 1 | 3 | 4;
  data: Uint8Array | Uint8ClampedArray;
}

/**
 * Raw pixels as a binary PNM (P5 gray, P6 colour), which Tesseract's image library reads natively:
 * no PNG encoder, no canvas. Transparent pixels are laid on white.
 */
export function encodePnm(image: RawImage): Uint8Array {
  const { width, height, channels, data } = image;
  const gray = channels === 1;
  const header = new TextEncoder().encode(`${gray ? "P5" : "P6"}\n${width} ${height}\n255\n`);
  const pixels = width * height;
  const out = new Uint8Array(header.length + pixels * (gray ? 1 : 3));
  out.set(header);
  const body = out.subarray(header.length);
  if (gray) {
    body.set(data.subarray(0, pixels));
  } else if (channels === 3) {
    body.set(data.subarray(0, pixels * 3));
  } else {
    for (let pixel = 0; pixel < pixels; pixel++) {
      const alpha = data[pixel * 4 + 3]! / 255;
      for (let channel = 0; channel < 3; channel++) {
        body[pixel * 3 + channel] = Math.round(data[pixel * 4 + channel]! * alpha + 255 * (1 - alpha));
      }
    }
  }
  return out;
}

/** Tesseract's plain text: trailing spaces off, no runs of blank lines. */
export function tidyOcrText(text: string): string {
  return text
    .split("\n")
    .map((line) => line.trimEnd())
    .join("\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}
