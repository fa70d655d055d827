/**
 * Document extraction benchmark: our readers (functions/shared/extraction) against the most common
 * Node alternative for each format, on a generated corpus, each case in its own child process so
 * peak RSS is the case's own. Then the bundled asset: its size and the cold import of the
 * registry against the first use of each format.
 *
 *   npx tsx bench/documents.ts            # the whole run (a few minutes)
 *   npx tsx bench/documents.ts --quick    # small corpus, for a smoke run
 *
 * Alternatives: PDF → pdf-parse (what LangChain's PDFLoader uses; v2, per-page text), DOCX →
 * mammoth.extractRawText, XLSX → SheetJS sheet_to_csv, PPTX and EPUB → officeparser (what
 * LangChain's PPTX loader uses). Prints a Markdown table, writes bench/results/documents.json.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { isEntryPoint, saveResults, startRun, type RunConditions } from "./support.ts";

const DEFAULT_RESULTS_FILE = fileURLToPath(new URL("./results/documents.json", import.meta.url));
const PROJECT_ROOT = fileURLToPath(new URL("../", import.meta.url));
const MB = 1024 * 1024;

type Tool = "ours" | "alternative";

interface Case {
  id: string;
  format: "pdf" | "docx" | "pptx" | "spreadsheet" | "epub" | "odt" | "rtf" | "email" | "image";
  /** What the units are: pages, slides, rows... */
  unit: string;
  units: number;
  /** Formats with no common Node reader to compare against are measured alone. */
  alternative?: string;
  make: () => Promise<Uint8Array>;
}

async function corpus(quick: boolean): Promise<Case[]> {
  const fixtures = await import("../test/fixtures/documents.ts");
  const scale = quick ? 0.1 : 1;
  const pages = Math.round(500 * scale);
  const slides = Math.round(200 * scale);
  const rows = Math.round(50_000 * scale);
  const paddedPages = Math.round(400 * scale);
  return [
    { id: `PDF, ${pages} pages`, format: "pdf", unit: "pages", units: pages, alternative: "pdf-parse 2.4.5", make: () => fixtures.textPdf({ pages, header: "Northwind Handbook", pageNumbers: true, paragraphsPerPage: 3 }) },
    {
      id: `PDF, ${paddedPages} pages, ${Math.round(paddedPages * 0.5)} MB`,
      format: "pdf",
      unit: "pages",
      units: paddedPages,
      alternative: "pdf-parse 2.4.5",
      make: () => fixtures.paddedPdf(paddedPages, 512 * 1024),
    },
    { id: `PPTX, ${slides} slides`, format: "pptx", unit: "slides", units: slides, alternative: "officeparser 8.1.1", make: () => fixtures.pptxFile(slides) },
    { id: `XLSX, ${rows} rows`, format: "spreadsheet", unit: "rows", units: rows + 2, alternative: "SheetJS → CSV", make: async () => fixtures.xlsxFile(rows) },
    { id: `DOCX, ${Math.round(300 * scale)} sections`, format: "docx", unit: "sections", units: Math.round(300 * scale), alternative: "mammoth raw text", make: () => fixtures.largeDocx(Math.round(300 * scale)) },
    { id: `EPUB, ${Math.round(100 * scale)} chapters`, format: "epub", unit: "chapters", units: Math.round(100 * scale), alternative: "officeparser 8.1.1", make: async () => fixtures.epubFile(Math.round(100 * scale), 20) },
    // The small formats: the fixtures the tests use, to show the per-file cost and memory.
    { id: "ODT, 1 page", format: "odt", unit: "files", units: 1, make: async () => fixtures.odtFile() },
    { id: "RTF, 1 page", format: "rtf", unit: "files", units: 1, make: async () => fixtures.rtfFile() },
    { id: "E-mail with attachments", format: "email", unit: "files", units: 1, make: async () => fixtures.emlFile() },
    { id: "PNG, 2 lines (OCR, eng)", format: "image", unit: "images", units: 1, make: async () => fixtures.png() },
    { id: "Scanned PDF, 1 page (OCR, eng)", format: "pdf", unit: "pages", units: 1, make: () => fixtures.scannedPdf() },
  ];
}

interface Measurement {
  /** Extraction only, module loading excluded. */
  ms: number;
  loadMs: number;
  characters: number;
  maxRssMb: number;
}

/** Runs in the child: loads the tool, extracts the file once, reports. */
async function child(format: Case["format"], tool: Tool, file: string): Promise<Measurement> {
  const bytes = new Uint8Array(readFileSync(file));
  const loadStart = performance.now();
  let run: () => Promise<string>;
  if (tool === "ours") {
    const { loadExtractor } = await import("../functions/shared/extraction/index.ts");
    const { extractionLimits } = await import("../functions/shared/extraction/limits.ts");
    const extractor = await loadExtractor(format);
    run = async () => (await extractor.extract(bytes, { limits: extractionLimits() })).text;
  } else if (format === "pdf") {
    const { PDFParse } = await import("pdf-parse");
    run = async () => {
      const parser = new PDFParse({ data: bytes });
      try {
        const result = await parser.getText();
        // Page numbers kept, as ours keeps page offsets.
        return result.pages.map((page) => page.text).join("\n\n");
      } finally {
        await parser.destroy();
      }
    };
  } else if (format === "docx") {
    const { default: mammoth } = await import("mammoth");
    run = async () => (await mammoth.extractRawText({ buffer: Buffer.from(bytes) })).value;
  } else if (format === "spreadsheet") {
    const XLSX = await import("@e965/xlsx");
    run = async () => {
      const workbook = XLSX.read(bytes, { type: "array" });
      return workbook.SheetNames.map((name) => XLSX.utils.sheet_to_csv(workbook.Sheets[name]!)).join("\n\n");
    };
  } else {
    const { parseOffice } = await import("officeparser");
    run = async () => (await (await parseOffice(Buffer.from(bytes))).to("text")).value as string;
  }
  const loadMs = performance.now() - loadStart;
  const started = performance.now();
  const text = await run();
  const ms = performance.now() - started;
  if (tool === "ours") {
    const { shutdownOcr } = await import("../functions/shared/extraction/ocr.ts");
    await shutdownOcr();
  }
  return { ms, loadMs, characters: text.length, maxRssMb: peakRssMb() };
}

/**
 * This process's own peak RSS. On Linux, getrusage's maxrss (process.resourceUsage) survives
 * fork + exec, so a child reports at least the parent's RSS at spawn time (the parent holds the
 * generated 200 MB PDF); the memory map's high-water mark (VmHWM) starts afresh at exec.
 */
function peakRssMb(): number {
  try {
    const kilobytes = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync("/proc/self/status", "utf8"))?.[1];
    if (kilobytes) return Number(kilobytes) / 1024;
  } catch {
    // Not Linux: fall back to getrusage.
  }
  return process.resourceUsage().maxRSS / 1024;
}

function spawnChild(format: Case["format"], tool: Tool, file: string): Measurement {
  const result = spawnSync(process.execPath, ["--import", "tsx", fileURLToPath(import.meta.url), "--child", format, tool, file], {
    cwd: PROJECT_ROOT,
    encoding: "utf8",
    maxBuffer: 16 * MB,
    timeout: 600_000,
  });
  const line = result.stdout.split("\n").find((candidate) => candidate.startsWith("{"));
  if (result.status !== 0 || !line) throw new Error(`${format}/${tool} failed: ${result.stderr.slice(-2000)}`);
  return JSON.parse(line) as Measurement;
}

/** Baseline RSS of a child that extracts nothing (Node, tsx and this script). */
function baselineRssMb(): number {
  const result = spawnSync(process.execPath, ["--import", "tsx", fileURLToPath(import.meta.url), "--baseline"], { cwd: PROJECT_ROOT, encoding: "utf8" });
  return Number(result.stdout.trim().split("\n").pop());
}

interface CaseRow {
  case: string;
  fileMb: number;
  unit: string;
  units: number;
  alternative?: string;
  ours: Measurement & { unitsPerSecond: number; mbPerSecond: number };
  other?: (Measurement & { unitsPerSecond: number; mbPerSecond: number }) | { error: string };
}

function best(measurements: Measurement[]): Measurement {
  return measurements.reduce((a, b) => (b.ms < a.ms ? b : a));
}

interface BundleReport {
  singleFileBytes: number;
  splitEntryBytes: number;
  splitTotalBytes: number;
  ocrRuntimeBytes: number;
  /** Fresh-process import of a module that imports only the registry, ms (median of runs). */
  registryImportMs: { singleFile: number; split: number };
  /** Fresh process: import the registry, load one format and extract a tiny file, ms (median). */
  firstUseMs: Record<string, number>;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function measureBundles(dir: string, runs: number): Promise<BundleReport> {
  const { buildExtractionAsset } = await import("./extraction-bundle.ts");
  const fixtures = await import("../test/fixtures/documents.ts");
  const single = await buildExtractionAsset(join(dir, "single"));
  const split = await buildExtractionAsset(join(dir, "split"), { splitting: true });
  const importMs = (entry: string) =>
    median(
      Array.from({ length: runs }, () => {
        const script = `const t = performance.now(); await import(${JSON.stringify(entry)}); console.log(performance.now() - t);`;
        return Number(spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" }).stdout.trim());
      }),
    );
  const tiny: Record<string, Uint8Array> = {
    pdf: await fixtures.textPdf({ pages: 1 }),
    docx: await fixtures.docxFile(),
    pptx: await fixtures.pptxFile(1),
    spreadsheet: fixtures.xlsxFile(2),
    odt: fixtures.odtFile(),
    epub: fixtures.epubFile(1, 1),
    rtf: fixtures.rtfFile(),
    email: fixtures.emlFile(),
    image: fixtures.png(),
  };
  const firstUseMs: Record<string, number> = {};
  for (const [format, bytes] of Object.entries(tiny)) {
    const file = join(dir, `tiny-${format}`);
    writeFileSync(file, bytes);
    // The entry reads `node index.mjs <format> <file>` from argv[2..]; under `-e` argv has no script path, so one is put in.
    const script = `const t = performance.now(); process.argv.splice(1, Infinity, ${JSON.stringify(split.entry)}, ${JSON.stringify(format)}, ${JSON.stringify(file)}); await import(${JSON.stringify(split.entry)}); console.error("ms=" + (performance.now() - t));`;
    firstUseMs[format] = median(
      Array.from({ length: format === "image" ? 3 : runs }, () => {
        const result = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8", maxBuffer: 16 * MB });
        const ms = /ms=([\d.]+)/.exec(result.stderr)?.[1];
        // An extraction that printed no document measured nothing: fail rather than report an import time as a first use.
        if (result.status !== 0 || !ms || !result.stdout.startsWith("{") || !(JSON.parse(result.stdout) as { text?: string }).text) {
          throw new Error(`first use of ${format} in the bundled asset failed: ${result.stderr.slice(-2000)}`);
        }
        return Number(ms);
      }),
    );
  }
  const splitFiles = spawnSync("find", [split.dir, "-maxdepth", "1", "-name", "*.mjs"], { encoding: "utf8" }).stdout.trim().split("\n");
  return {
    singleFileBytes: single.bundleBytes,
    splitEntryBytes: statSync(split.entry).size,
    splitTotalBytes: splitFiles.reduce((sum, file) => sum + statSync(file).size, 0),
    ocrRuntimeBytes: single.runtimeBytes,
    registryImportMs: { singleFile: importMs(single.entry), split: importMs(split.entry) },
    firstUseMs,
  };
}

export interface DocumentsBenchReport extends RunConditions {
  benchmark: "documents";
  baselineRssMb: number;
  rows: CaseRow[];
  bundles: BundleReport;
  markdown: string;
}

export async function runDocumentsBench(options: { quick?: boolean; resultsFile?: string | null; log?: (line: string) => void } = {}): Promise<DocumentsBenchReport> {
  const run = startRun();
  const log = options.log ?? ((line: string) => console.log(line));
  const dir = mkdtempSync(join(tmpdir(), "documents-bench-"));
  try {
    const baseline = baselineRssMb();
    const rows: CaseRow[] = [];
    for (const testCase of await corpus(options.quick ?? false)) {
      const bytes = await testCase.make();
      const file = join(dir, "input");
      writeFileSync(file, bytes);
      const fileMb = bytes.length / MB;
      const rate = (measurement: Measurement) => ({
        ...measurement,
        unitsPerSecond: testCase.units / (measurement.ms / 1000),
        mbPerSecond: fileMb / (measurement.ms / 1000),
      });
      // Alternate the tools so machine noise hits both alike; best of two runs each.
      const ours: Measurement[] = [];
      const other: Measurement[] = [];
      let otherError: string | undefined;
      for (let run = 0; run < 2; run++) {
        ours.push(spawnChild(testCase.format, "ours", file));
        try {
          if (testCase.alternative && !otherError) other.push(spawnChild(testCase.format, "alternative", file));
        } catch (error) {
          otherError = (error instanceof Error ? error.message : String(error)).split("\n").slice(0, 3).join(" ");
        }
      }
      const row: CaseRow = {
        case: testCase.id,
        fileMb,
        unit: testCase.unit,
        units: testCase.units,
        alternative: testCase.alternative,
        ours: rate(best(ours)),
        ...(testCase.alternative ? { other: otherError ? { error: otherError } : rate(best(other)) } : {}),
      };
      rows.push(row);
      const otherLine = !row.other ? "" : `, ${row.alternative} ${"error" in row.other ? row.other.error : `${row.other.ms.toFixed(0)} ms`}`;
      log(`${row.case}: ours ${row.ours.ms.toFixed(0)} ms, peak RSS ${row.ours.maxRssMb.toFixed(0)} MB${otherLine}`);
    }
    const bundles = await measureBundles(dir, 7);
    const markdown = render(rows, bundles, baseline);
    log("");
    log(markdown);
    const report: DocumentsBenchReport = { benchmark: "documents", ...run.conditions(), baselineRssMb: baseline, rows, bundles, markdown };
    saveResults(options.resultsFile, DEFAULT_RESULTS_FILE, report, log);
    return report;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function render(rows: readonly CaseRow[], bundles: BundleReport, baseline: number): string {
  const lines = [
    "| case | file MB | ours units/s (or ms per file) | ours MB/s | ours peak RSS MB | alternative | its units/s | its MB/s | its peak RSS MB | speed-up |",
    "|---|---:|---:|---:|---:|---|---:|---:|---:|---:|",
  ];
  for (const row of rows) {
    const other = !row.other || "error" in row.other ? undefined : row.other;
    const ourRate = row.units === 1 ? `${row.ours.ms.toFixed(0)} ms` : `${row.ours.unitsPerSecond.toFixed(0)} ${row.unit}/s`;
    lines.push(
      `| ${row.case} | ${row.fileMb.toFixed(2)} | ${ourRate} | ${row.ours.mbPerSecond.toFixed(1)} | ${row.ours.maxRssMb.toFixed(0)} | ${row.alternative ?? "none"} | ` +
        (other
          ? `${other.unitsPerSecond.toFixed(0)} ${row.unit}/s | ${other.mbPerSecond.toFixed(1)} | ${other.maxRssMb.toFixed(0)} | ${(other.ms / row.ours.ms).toFixed(2)}× |`
          : row.other
            ? `failed | | | |`
            : `| | | |`),
    );
  }
  lines.push("", `Peak RSS is the child process's own high-water mark (VmHWM) and includes Node, tsx and this script (a child that loads only those peaks at ${baseline.toFixed(0)} MB).`, "");
  lines.push("| bundle | bytes | registry-only cold import ms |", "|---|---:|---:|");
  lines.push(`| one file (project options today) | ${bundles.singleFileBytes} | ${bundles.registryImportMs.singleFile.toFixed(1)} |`);
  lines.push(`| esbuild splitting: entry / all chunks | ${bundles.splitEntryBytes} / ${bundles.splitTotalBytes} | ${bundles.registryImportMs.split.toFixed(1)} |`);
  lines.push(`| OCR runtime copied beside the bundle | ${bundles.ocrRuntimeBytes} | |`, "");
  lines.push("| format | first use in a fresh process (import + load + tiny extraction) ms |", "|---|---:|");
  for (const [format, ms] of Object.entries(bundles.firstUseMs)) lines.push(`| ${format} | ${ms.toFixed(0)} |`);
  return lines.join("\n");
}

if (isEntryPoint(import.meta.url)) {
  const args = process.argv.slice(2);
  if (args[0] === "--baseline") {
    console.log(peakRssMb());
  } else if (args[0] === "--child") {
    const measurement = await child(args[1] as Case["format"], args[2] as Tool, args[3]!);
    console.log(JSON.stringify(measurement));
  } else {
    await runDocumentsBench({ quick: args.includes("--quick") });
  }
}
