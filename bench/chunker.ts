/**
 * Chunker benchmark: our chunkText against LangChain's RecursiveCharacterTextSplitter on the same
 * generated Markdown, for speed (MB/s) and boundary quality measured the same way for both.
 *
 *   npx tsx bench/chunker.ts
 *
 * Prints a Markdown table and writes bench/results/chunker.json.
 */
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { RecursiveCharacterTextSplitter } from "@langchain/textsplitters";
import { chunkText } from "../functions/shared/text/chunker.ts";
import { isEntryPoint, seededRandom, saveResults, startRun, type RunConditions } from "./support.ts";

const WORDS = (
  "the of and to in a is that for it as was with be by on not he this are or his from at which " +
  "but have an they you were her she there been one all we their has would when if so no will can " +
  "more other its into only some could time these two may then do first any my now such like our " +
  "over man me even most made after also did many before must through back years where much your " +
  "way well down should because each just those people how too little state good very make world " +
  "still own see men work long get here between both life being under never day same another know " +
  "while last might us great old year off come since against go came right used take three " +
  "ingestion pipeline document namespace embedding vector retrieval chunk boundary paragraph " +
  "sentence tokenizer throughput latency partition queue worker lambda storage bucket metadata " +
  "configuration deployment infrastructure observability idempotent asynchronous serialization " +
  "characteristics internationalization responsibilities acknowledgement straightforward " +
  "notwithstanding approximately implementation interoperability reconciliation"
).split(" ");

const CODE_LINES = [
  "const result = await client.send(command);",
  "if (items.length === 0) return [];",
  "for (const record of batch.Records) {",
  "  logger.info({ id: record.messageId }, \"processing\");",
  "}",
  "# normalise the input before hashing",
  "def chunk(text, size=2048):",
  "    return [text[i:i + size] for i in range(0, len(text), size)]",
  "export function parse(input: string): Node[] {",
  "  const tokens = tokenize(input);",
  "SELECT id, name FROM documents WHERE namespace_id = $1 ORDER BY created_at DESC;",
  "",
];

interface CorpusWriter {
  parts: string[];
  length: number;
}

/** Markdown of at least `targetLength` characters; the same seed always gives the same text. */
export function generateMarkdown(targetLength: number, seed: number): string {
  const random = seededRandom(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const between = (low: number, high: number): number => low + Math.floor(random() * (high - low + 1));
  const out: CorpusWriter = { parts: [], length: 0 };
  const write = (part: string): void => {
    out.parts.push(part);
    out.length += part.length;
  };

  const sentence = (): string => {
    const words: string[] = [];
    const count = between(4, 26);
    for (let i = 0; i < count; i++) {
      let word = pick(WORDS);
      if (random() < 0.04) word = `\`${word}\``;
      else if (random() < 0.03) word = `**${word}**`;
      else if (random() < 0.02) word = String(between(2, 2048));
      if (i > 0 && i < count - 1 && random() < 0.08) word += ",";
      words.push(word);
    }
    if (random() < 0.05) words.splice(between(1, words.length - 1), 0, "e.g.");
    const first = words[0] ?? "it";
    words[0] = first.charAt(0).toUpperCase() + first.slice(1);
    const roll = random();
    return words.join(" ") + (roll < 0.86 ? "." : roll < 0.93 ? "?" : "!");
  };
  const paragraph = (): string => {
    // Mostly short paragraphs, with a long tail that forces splits inside paragraphs.
    const count = random() < 0.15 ? between(10, 40) : between(1, 6);
    const sentences: string[] = [];
    for (let i = 0; i < count; i++) sentences.push(sentence());
    return sentences.join(" ");
  };
  const heading = (): string => {
    const words: string[] = [];
    for (let i = between(2, 6); i > 0; i--) words.push(pick(WORDS));
    const title = words.join(" ");
    return `${"#".repeat(between(1, 3))} ${title.charAt(0).toUpperCase()}${title.slice(1)}`;
  };
  const list = (): string => {
    const ordered = random() < 0.4;
    const items: string[] = [];
    for (let i = 1, count = between(2, 8); i <= count; i++) {
      items.push(`${ordered ? `${i}.` : "-"} ${sentence()}`);
    }
    return items.join("\n");
  };
  const code = (): string => {
    const lines = [`\`\`\`${pick(["ts", "python", "sql", ""])}`];
    for (let i = between(3, 24); i > 0; i--) lines.push(pick(CODE_LINES));
    lines.push("```");
    return lines.join("\n");
  };
  const table = (): string => {
    const rows = ["| name | value | notes |", "|---|---|---|"];
    for (let i = between(2, 10); i > 0; i--) {
      rows.push(`| ${pick(WORDS)} | ${between(0, 9999)} | ${pick(WORDS)} ${pick(WORDS)} |`);
    }
    return rows.join("\n");
  };

  write(`${heading()}\n\n`);
  while (out.length < targetLength) {
    const roll = random();
    const block =
      roll < 0.12
        ? heading()
        : roll < 0.72
          ? paragraph()
          : roll < 0.85
            ? list()
            : roll < 0.95
              ? code()
              : table();
    write(`${block}\n\n`);
  }
  return out.parts.join("");
}

interface Span {
  start: number;
  end: number;
}

interface Quality {
  chunks: number;
  /** Chunks whose last non-whitespace character ends a paragraph, a line, a sentence or the text. */
  boundaryShare: number;
  /** Chunks that end between two letters or digits of the same word. */
  midWordShare: number;
  /** Mean of trimmed chunk length / chunkSize. */
  meanFill: number;
  maxLength: number;
  /** Chunks that could not be found in the source (never expected). */
  unlocated: number;
  exactReassembly: boolean;
}

const WORD_CHARACTER = /[\p{L}\p{N}_]/u;

function isSpace(c: string | undefined): boolean {
  return c !== undefined && c.trim() === "";
}

function endsAtBoundary(source: string, trimmedEnd: number): boolean {
  if (trimmedEnd >= source.length) return true;
  for (let i = trimmedEnd; i < source.length && isSpace(source[i]); i++) {
    if (source[i] === "\n") return true;
  }
  if (!isSpace(source[trimmedEnd])) return false;
  let last = trimmedEnd - 1;
  while (last > 0 && `"')]*_`.includes(source[last] ?? "")) last--;
  return ".!?".includes(source[last] ?? "x");
}

function measureQuality(
  source: string,
  texts: readonly string[],
  spans: readonly (Span | null)[],
  chunkSize: number,
): Quality {
  let atBoundary = 0;
  let midWord = 0;
  let fill = 0;
  let maxLength = 0;
  let unlocated = 0;
  for (let k = 0; k < texts.length; k++) {
    const text = texts[k] ?? "";
    const span = spans[k];
    maxLength = Math.max(maxLength, text.length);
    fill += text.trimEnd().length / chunkSize;
    if (span == null) {
      unlocated++;
      continue;
    }
    let trimmedEnd = span.end;
    while (trimmedEnd > span.start && isSpace(source[trimmedEnd - 1])) trimmedEnd--;
    if (endsAtBoundary(source, trimmedEnd)) atBoundary++;
    const before = source[trimmedEnd - 1];
    const after = source[trimmedEnd];
    const betweenLetters = before !== undefined && after !== undefined;
    if (betweenLetters && WORD_CHARACTER.test(before) && WORD_CHARACTER.test(after)) midWord++;
  }
  const count = Math.max(1, texts.length);
  return {
    chunks: texts.length,
    boundaryShare: atBoundary / count,
    midWordShare: midWord / count,
    meanFill: fill / count,
    maxLength,
    unlocated,
    exactReassembly: texts.join("") === source,
  };
}

/** LangChain returns trimmed strings, so its offsets are recovered by searching forward in order. */
function locate(source: string, texts: readonly string[]): (Span | null)[] {
  let cursor = 0;
  return texts.map((text) => {
    const start = source.indexOf(text, cursor);
    if (start === -1) return null;
    cursor = start + text.length;
    return { start, end: start + text.length };
  });
}

interface Timing {
  iterations: number;
  medianMs: number;
  megabytesPerSecond: number;
}

async function time(
  label: string,
  bytes: number,
  iterations: number,
  warmups: number,
  run: () => unknown,
): Promise<Timing> {
  for (let i = 0; i < warmups; i++) await run();
  const samples: number[] = [];
  for (let i = 0; i < iterations; i++) {
    const began = performance.now();
    await run();
    samples.push(performance.now() - began);
  }
  samples.sort((a, b) => a - b);
  const medianMs = samples[Math.floor(samples.length / 2)] ?? Number.NaN;
  if (!Number.isFinite(medianMs)) throw new Error(`no timing samples for ${label}`);
  return { iterations, medianMs, megabytesPerSecond: bytes / 1e6 / (medianMs / 1000) };
}

export interface ChunkerBenchRow {
  corpus: string;
  corpusCharacters: number;
  chunkSize: number;
  ours: Timing & Quality;
  /** Our chunker with strategy by_title, for reference (LangChain has no equivalent). */
  oursByTitle: Timing;
  langchain: Timing & Quality;
  /** ours MB/s ÷ LangChain MB/s. */
  speedup: number;
}

export interface ChunkerBenchReport extends RunConditions {
  benchmark: "chunker";
  rows: ChunkerBenchRow[];
  markdown: string;
}

export interface ChunkerBenchOptions {
  corpusSizes?: readonly { label: string; characters: number }[];
  chunkSizes?: readonly number[];
  /** Where the JSON goes; null skips writing. */
  resultsFile?: string | null;
  log?: (line: string) => void;
}

const DEFAULT_CORPORA = [
  { label: "100 KB", characters: 100_000 },
  { label: "1 MB", characters: 1_000_000 },
  { label: "10 MB", characters: 10_000_000 },
] as const;

const DEFAULT_RESULTS_FILE = fileURLToPath(new URL("./results/chunker.json", import.meta.url));

/** Enough repetitions that small corpora are timed over ~1 s of work, large ones at least 3 times. */
function iterationsFor(characters: number, perSecond: number): number {
  return Math.max(3, Math.min(200, Math.round(perSecond / characters)));
}

export async function runChunkerBench(options: ChunkerBenchOptions = {}): Promise<ChunkerBenchReport> {
  const run = startRun();
  const corpora = options.corpusSizes ?? DEFAULT_CORPORA;
  const chunkSizes = options.chunkSizes ?? [512, 2048];
  const log = options.log ?? ((line: string) => console.log(line));
  const rows: ChunkerBenchRow[] = [];

  for (const corpus of corpora) {
    const source = generateMarkdown(corpus.characters, 20_240_611);
    const bytes = Buffer.byteLength(source, "utf8");
    for (const chunkSize of chunkSizes) {
      const chunkOptions = { chunkSize, chunkOverlap: 0, strategy: "basic" as const };
      const splitter = new RecursiveCharacterTextSplitter({ chunkSize, chunkOverlap: 0 });

      const ourIterations = iterationsFor(source.length, 200_000_000);
      const langchainIterations = iterationsFor(source.length, 20_000_000);
      const byTitleOptions = { ...chunkOptions, strategy: "by_title" as const };
      const oursTiming = await time("ours", bytes, ourIterations, 3, () => chunkText(source, chunkOptions));
      const byTitleTiming = await time("ours by_title", bytes, ourIterations, 3, () =>
        chunkText(source, byTitleOptions),
      );
      const langchainTiming = await time("langchain", bytes, langchainIterations, 1, () =>
        splitter.splitText(source),
      );

      const ourChunks = chunkText(source, chunkOptions);
      const ourQuality = measureQuality(
        source,
        ourChunks.map((chunk) => chunk.text),
        ourChunks,
        chunkSize,
      );
      const langchainTexts = await splitter.splitText(source);
      const langchainSpans = locate(source, langchainTexts);
      const langchainQuality = measureQuality(source, langchainTexts, langchainSpans, chunkSize);

      const row: ChunkerBenchRow = {
        corpus: corpus.label,
        corpusCharacters: source.length,
        chunkSize,
        ours: { ...oursTiming, ...ourQuality },
        oursByTitle: byTitleTiming,
        langchain: { ...langchainTiming, ...langchainQuality },
        speedup: oursTiming.megabytesPerSecond / langchainTiming.megabytesPerSecond,
      };
      rows.push(row);
      log(
        `${corpus.label} @ ${chunkSize}: ours ${row.ours.megabytesPerSecond.toFixed(1)} MB/s, ` +
          `LangChain ${row.langchain.megabytesPerSecond.toFixed(1)} MB/s (${row.speedup.toFixed(1)}×)`,
      );
    }
  }

  const markdown = renderTable(rows);
  log("");
  log(markdown);
  const report: ChunkerBenchReport = {
    benchmark: "chunker",
    ...run.conditions(),
    rows,
    markdown,
  };
  saveResults(options.resultsFile, DEFAULT_RESULTS_FILE, report, log);
  return report;
}

function percent(share: number): string {
  return `${(share * 100).toFixed(1)}%`;
}

function renderTable(rows: readonly ChunkerBenchRow[]): string {
  const lines = [
    "| corpus | chunkSize | ours MB/s | LangChain MB/s | speed-up | ours by_title MB/s | chunks (ours / LC) " +
      "| ends at boundary (ours / LC) | ends mid-word (ours / LC) | mean fill (ours / LC) " +
      "| max length (ours / LC) | exact reassembly (ours / LC) |",
    "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|",
  ];
  for (const row of rows) {
    const { ours, langchain } = row;
    lines.push(
      `| ${row.corpus} | ${row.chunkSize} | ` +
        `${ours.megabytesPerSecond.toFixed(1)} | ${langchain.megabytesPerSecond.toFixed(1)} | ` +
        `${row.speedup.toFixed(1)}× | ${row.oursByTitle.megabytesPerSecond.toFixed(1)} | ` +
        `${ours.chunks} / ${langchain.chunks} | ` +
        `${percent(ours.boundaryShare)} / ${percent(langchain.boundaryShare)} | ` +
        `${percent(ours.midWordShare)} / ${percent(langchain.midWordShare)} | ` +
        `${ours.meanFill.toFixed(3)} / ${langchain.meanFill.toFixed(3)} | ` +
        `${ours.maxLength} / ${langchain.maxLength} | ` +
        `${ours.exactReassembly ? "yes" : "no"} / ${langchain.exactReassembly ? "yes" : "no"} |`,
    );
  }
  return lines.join("\n");
}

if (isEntryPoint(import.meta.url)) await runChunkerBench();
