/**
 * Text-format readers (extraction/text-formats.ts) on 5 MB inputs and on hostile shapes (one
 * enormous line, absurd nesting), as throughput and as a ratio to decoding the same bytes with
 * TextDecoder in the same run, so the numbers compare across machines and loads. The unit tests
 * check what these inputs produce; how fast lives here (no wall-clock assertion in a test).
 *
 *   npx tsx bench/text-parsers.ts
 *
 * Prints a Markdown table and writes bench/results/text-parsers.json.
 */
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { DocumentExtractionError } from "../functions/shared/extraction/extraction-error.ts";
import { extractText, type TextFormat } from "../functions/shared/extraction/text-formats.ts";
import { chunkText } from "../functions/shared/text/chunker.ts";
import { isEntryPoint, saveResults } from "./support.ts";

const RESULTS_FILE = fileURLToPath(new URL("./results/text-parsers.json", import.meta.url));
const FIVE_MB = 5 * 1024 * 1024;
const RUNS = 5;

interface Case {
  name: string;
  format: TextFormat | "chunker";
  source: string;
}

function repeatTo(block: string, size: number): string {
  return block.repeat(Math.ceil(size / block.length));
}

function cases(): Case[] {
  const records: unknown[] = [];
  for (let id = 0, size = 0; size < FIVE_MB; id++) {
    const record = { id, name: `Record ${id}`, tags: ["a", "b"], body: { text: "Some longer text value here.", n: id } };
    records.push(record);
    size += JSON.stringify(record).length + 1;
  }
  const rows = ["id,name,description,price"];
  for (let id = 0, size = 0; size < FIVE_MB; id++) {
    const row = `${id},"Product ${id}","A description, with a comma and ""quotes"" for ${id}",${id}.99`;
    rows.push(row);
    size += row.length + 1;
  }
  const html =
    "<div><h2>Heading</h2><p>Some <b>bold</b> text with <a href='https://example.com'>a link</a> &amp; more.</p>" +
    "<ul><li>one</li><li>two</li></ul><table><tr><td>1</td><td>2</td></tr></table></div>";
  const markdown = "## Section\r\n\r\nA paragraph with some *emphasis*, a [link](https://example.com) and naïve text.\r\n\r\n- item\r\n";
  const line = "word ".repeat(1_000_000);
  return [
    { name: "5 MB Markdown", format: "markdown", source: repeatTo(markdown, FIVE_MB) },
    { name: "5 MB CSV", format: "csv", source: rows.join("\n") },
    { name: "5 MB JSON", format: "json", source: JSON.stringify(records) },
    { name: "5 MB HTML", format: "html", source: `<html><body>${repeatTo(html, FIVE_MB)}</body></html>` },
    { name: "one 5 MB line, text", format: "text", source: line },
    { name: "one 5 MB line, HTML", format: "html", source: line },
    { name: "one 5 MB line, CSV", format: "csv", source: line },
    { name: "HTML nested 200,000 deep (refused)", format: "html", source: "<div>".repeat(200_000) + "x" },
    { name: "JSON nested 1,000,000 deep (refused)", format: "json", source: "[".repeat(1_000_000) + "]".repeat(1_000_000) },
    { name: "chunker, 2 MB without a boundary", format: "chunker", source: "x".repeat(2_000_000) },
    { name: "chunker, 5 MB Markdown", format: "chunker", source: repeatTo(markdown, FIVE_MB) },
  ];
}

function runCase(testCase: Case, bytes: Uint8Array): void {
  if (testCase.format === "chunker") {
    chunkText(testCase.source, { chunkSize: 512, chunkOverlap: 0, strategy: "basic" });
    return;
  }
  try {
    extractText(bytes, testCase.format);
  } catch (error) {
    if (!(error instanceof DocumentExtractionError)) throw error;
  }
}

function medianMs(run: () => void): number {
  const samples: number[] = [];
  for (let index = 0; index < RUNS; index++) {
    const started = performance.now();
    run();
    samples.push(performance.now() - started);
  }
  return samples.sort((a, b) => a - b)[Math.floor(RUNS / 2)]!;
}

export async function main(): Promise<void> {
  const results = [];
  for (const testCase of cases()) {
    const bytes = new TextEncoder().encode(testCase.source);
    runCase(testCase, bytes); // warm the JIT
    const decodeMs = medianMs(() => new TextDecoder().decode(bytes));
    const ms = medianMs(() => runCase(testCase, bytes));
    results.push({
      case: testCase.name,
      megabytes: bytes.length / (1024 * 1024),
      medianMs: ms,
      mbPerSecond: bytes.length / (1024 * 1024) / (ms / 1000),
      ratioToDecode: ms / Math.max(decodeMs, 0.001),
    });
  }
  console.log("| input | MB | median ms | MB/s | × TextDecoder |");
  console.log("|---|---:|---:|---:|---:|");
  for (const row of results) {
    console.log(`| ${row.case} | ${row.megabytes.toFixed(1)} | ${row.medianMs.toFixed(0)} | ${row.mbPerSecond.toFixed(1)} | ${row.ratioToDecode.toFixed(0)} |`);
  }
  saveResults(undefined, RESULTS_FILE, { runs: RUNS, results }, console.log);
}

if (isEntryPoint(import.meta.url)) await main();
