/**
 * Bundle benchmark: every Lambda function of the stack bundled exactly as it ships (the
 * `ESBUILD_OPTIONS` of lib/bundling.ts, which `AppFunction` maps onto NodejsFunction), then its
 * minified and gzip size and its cold import time.
 *
 *   npx tsx bench/bundles.ts
 *
 * Cold import is the time from `import()` of the bundle until the module is evaluated, in a fresh
 * `node` process each run, timed with `performance.now()` inside that process (node's own start-up
 * is excluded: Lambda pays it whatever the bundle). Runs are interleaved across functions so a slow
 * moment of the machine spreads over all of them. Prints a Markdown table and writes
 * bench/results/bundles.json; the bundles stay in .dist/bench-bundles/<id>/index.mjs.
 */
import { execFile } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import { builtinModules } from "node:module";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { gzipSync } from "node:zlib";
import { build, type BuildOptions, type Metafile, version as esbuildVersion } from "esbuild";
import { ESBUILD_OPTIONS, SPLIT_OPTIONS, splitEntryPoints } from "../lib/bundling.ts";
import { EXTRACTION_EXTERNAL_MODULES } from "../lib/extraction-asset.ts";
import { projectPath } from "../lib/project.ts";
import { AUTHORIZER, HTTP_FUNCTIONS } from "../lib/routes.ts";
import { SCHEDULED_FUNCTIONS, WORKERS } from "../lib/workers.ts";
import { isEntryPoint, percentile, saveResults, startRun, type RunConditions } from "./support.ts";

/** The targets of issue 2, per function. Sizes are in KB of 1,000 bytes. */
export const MAX_BUNDLE_BYTES = 400_000;
export const MAX_COLD_IMPORT_MS = 150;

export type FunctionKind = "http" | "authorizer" | "worker" | "scheduled";

export interface FunctionEntry {
  id: string;
  kind: FunctionKind;
  /** From the project root. */
  entry: string;
  /** Bundled with code splitting and the OCR runtime external (AppFunction's `extractsDocuments`). */
  extractsDocuments?: boolean;
}

/** Every function the stack deploys, from the same tables the stack is built from. */
export function functionEntries(): FunctionEntry[] {
  return [
    ...HTTP_FUNCTIONS.map((fn): FunctionEntry => ({ id: fn.id, kind: "http", entry: fn.entry })),
    { id: AUTHORIZER.id, kind: "authorizer", entry: AUTHORIZER.entry },
    ...WORKERS.map((fn): FunctionEntry => ({ id: fn.id, kind: "worker", entry: fn.entry, extractsDocuments: fn.extractsDocuments })),
    ...SCHEDULED_FUNCTIONS.map((fn): FunctionEntry => ({ id: fn.id, kind: "scheduled", entry: fn.entry })),
  ];
}

export interface BuiltBundle extends FunctionEntry {
  /** Absolute path of the written bundle; undefined for an in-memory build. */
  file?: string;
  bytes: number;
  gzipBytes: number;
  /** Every module in the bundle, from the project root (node_modules/... for packages). */
  modules: string[];
  /** Packages the bundle imports at load time instead of containing them (static `import`). */
  loadTimeExternals: string[];
  /** Packages the bundle imports with `import()` on first use. */
  lazyExternals: string[];
}

/**
 * Bundles every function with the shipped options: the single-file ones in one esbuild call (each
 * entry still bundled on its own), those that extract documents each in its own call with code
 * splitting, as AppFunction ships them. A split function's size is what Node loads at cold start:
 * its entry and the chunks the entry imports statically, not the chunks behind `import()`.
 * `outdir` null keeps the output in memory.
 */
export async function buildBundles(entries: FunctionEntry[], outdir: string | null): Promise<BuiltBundle[]> {
  const root = outdir ?? projectPath(".dist/bench-bundles-in-memory");
  const single = entries.filter((fn) => !fn.extractsDocuments);
  const built = new Map<string, BuiltBundle>();
  if (single.length > 0) {
    const output = await runBuild({ entryPoints: Object.fromEntries(single.map((fn) => [`${fn.id}/index`, projectPath(fn.entry)])), outdir: root }, outdir !== null);
    for (const fn of single) built.set(fn.id, describeBundle(fn, join(root, fn.id, "index.mjs"), output, outdir !== null));
  }
  for (const fn of entries.filter((candidate) => candidate.extractsDocuments)) {
    const dir = join(root, fn.id);
    const output = await runBuild(
      { ...SPLIT_OPTIONS, entryPoints: splitEntryPoints(projectPath(fn.entry)), outdir: dir, external: [...ESBUILD_OPTIONS.external, ...EXTRACTION_EXTERNAL_MODULES] },
      outdir !== null,
    );
    built.set(fn.id, describeBundle(fn, join(dir, "index.mjs"), output, outdir !== null));
  }
  return entries.map((fn) => built.get(fn.id)!);
}

interface BuildOutput {
  contents: Map<string, Uint8Array>;
  meta: Map<string, Metafile["outputs"][string]>;
}

async function runBuild(options: BuildOptions, write: boolean): Promise<BuildOutput> {
  const result = await build({
    ...ESBUILD_OPTIONS,
    outExtension: { ".js": ".mjs" },
    absWorkingDir: projectPath("."),
    write,
    metafile: true,
    logLevel: "silent",
    ...options,
  });
  if (result.errors.length > 0) throw new Error(`esbuild failed: ${result.errors.map((e) => e.text).join("; ")}`);
  const contents = new Map<string, Uint8Array>();
  for (const file of result.outputFiles ?? []) contents.set(file.path, file.contents);
  return { contents, meta: new Map(Object.entries(result.metafile!.outputs).map(([path, meta]) => [projectPath(path), meta])) };
}

function describeBundle(fn: FunctionEntry, file: string, output: BuildOutput, written: boolean): BuiltBundle {
  const meta = output.meta.get(file);
  if (!meta) throw new Error(`esbuild produced no ${file}`);
  // The entry and every chunk it imports statically, transitively: what a cold start reads.
  const loaded = [file];
  for (let index = 0; index < loaded.length; index++) {
    for (const imported of output.meta.get(loaded[index]!)?.imports ?? []) {
      if (imported.external || imported.kind !== "import-statement") continue;
      const path = projectPath(imported.path);
      if (output.meta.has(path) && !loaded.includes(path)) loaded.push(path);
    }
  }
  // A written build has no outputFiles: read back what esbuild wrote.
  const contents = Buffer.concat(loaded.map((path) => output.contents.get(path) ?? readFileSync(path)));
  const externals = (kind: string) =>
    [...new Set(meta.imports.filter((imp) => imp.external && imp.kind === kind && !isBuiltin(imp.path)).map((imp) => imp.path))].sort();
  return {
    ...fn,
    file: written ? file : undefined,
    // Only the bundle itself counts: the source map beside it is read only to decode a stack trace.
    bytes: contents.byteLength,
    gzipBytes: gzipSync(contents).byteLength,
    // Every module shipped, lazily loaded chunks included (a split build holds this function alone).
    modules: fn.extractsDocuments ? [...output.meta.values()].flatMap((chunk) => Object.keys(chunk.inputs)) : Object.keys(meta.inputs),
    loadTimeExternals: externals("import-statement"),
    lazyExternals: externals("dynamic-import"),
  };
}

function isBuiltin(specifier: string): boolean {
  return specifier.startsWith("node:") || builtinModules.includes(specifier);
}

const execFileAsync = promisify(execFile);

/**
 * The child's whole program: time one dynamic import and print the milliseconds. The bundle's URL
 * is the first argument after the script.
 */
const CHILD_SCRIPT =
  "const url = process.argv[1]; const began = performance.now(); await import(url); " +
  "process.stdout.write(String(performance.now() - began));";

/** Environment of a function at import time: a region and no SDK notice about Node 20. */
const CHILD_ENV: NodeJS.ProcessEnv = {
  PATH: process.env.PATH,
  AWS_REGION: "us-east-1",
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true",
};

export async function coldImportMs(file: string): Promise<number> {
  const { stdout } = await execFileAsync(
    process.execPath,
    ["--input-type=module", "--eval", CHILD_SCRIPT, pathToFileURL(file).href],
    { env: CHILD_ENV, timeout: 30_000 },
  );
  const ms = Number(stdout.trim());
  if (!Number.isFinite(ms)) throw new Error(`cold import of ${file} printed ${JSON.stringify(stdout)}`);
  return ms;
}

export interface BundleBenchRow {
  id: string;
  kind: FunctionKind;
  entry: string;
  bytes: number;
  gzipBytes: number;
  coldImportMs: { runs: number; p50: number; p90: number; min: number; max: number; samples: number[] };
  withinSize: boolean;
  withinColdImport: boolean;
}

export interface BundleBenchReport extends RunConditions {
  benchmark: "bundles";
  esbuild: string;
  platform: string;
  limits: { maxBundleBytes: number; maxColdImportMs: number };
  rows: BundleBenchRow[];
  markdown: string;
}

export interface BundleBenchOptions {
  /** Fresh processes per bundle. */
  runs?: number;
  /** Where the bundles are written. */
  outdir?: string;
  /** Where the JSON goes; null skips writing. */
  resultsFile?: string | null;
  /** Only the functions whose id is listed (all by default). */
  only?: readonly string[];
  log?: (line: string) => void;
}

const DEFAULT_OUTDIR = projectPath(".dist/bench-bundles");
const DEFAULT_RESULTS_FILE = fileURLToPath(new URL("./results/bundles.json", import.meta.url));

export async function runBundlesBench(options: BundleBenchOptions = {}): Promise<BundleBenchReport> {
  const run = startRun();
  const runs = options.runs ?? 15;
  const outdir = options.outdir ?? DEFAULT_OUTDIR;
  const log = options.log ?? ((line: string) => console.log(line));
  const only = options.only;
  const entries = functionEntries().filter((fn) => !only || only.includes(fn.id));

  rmSync(outdir, { recursive: true, force: true });
  const bundles = await buildBundles(entries, outdir);
  log(`built ${bundles.length} bundles in ${outdir}`);

  // One warm-up import per bundle fills the OS file cache, so the first timed run is not an outlier.
  for (const bundle of bundles) await coldImportMs(bundle.file!);
  const samples = new Map<string, number[]>(bundles.map((bundle) => [bundle.id, []]));
  for (let run = 0; run < runs; run++) {
    for (const bundle of bundles) samples.get(bundle.id)!.push(await coldImportMs(bundle.file!));
    log(`cold import: run ${run + 1}/${runs} done`);
  }

  const rows: BundleBenchRow[] = bundles.map((bundle) => {
    const taken = samples.get(bundle.id)!;
    const sorted = [...taken].sort((a, b) => a - b);
    const p50 = percentile(sorted, 50);
    const p90 = percentile(sorted, 90);
    return {
      id: bundle.id,
      kind: bundle.kind,
      entry: bundle.entry,
      bytes: bundle.bytes,
      gzipBytes: bundle.gzipBytes,
      coldImportMs: { runs, p50, p90, min: sorted[0]!, max: sorted[sorted.length - 1]!, samples: taken },
      withinSize: bundle.bytes <= MAX_BUNDLE_BYTES,
      withinColdImport: p50 < MAX_COLD_IMPORT_MS,
    };
  });

  const markdown = renderTable(rows, runs);
  log("");
  log(markdown);
  const report: BundleBenchReport = {
    benchmark: "bundles",
    ...run.conditions(),
    esbuild: esbuildVersion,
    platform: `${process.platform}-${process.arch}`,
    limits: { maxBundleBytes: MAX_BUNDLE_BYTES, maxColdImportMs: MAX_COLD_IMPORT_MS },
    rows,
    markdown,
  };
  saveResults(options.resultsFile, DEFAULT_RESULTS_FILE, report, log);
  return report;
}

const kb = (bytes: number): string => (bytes / 1000).toFixed(1);

export function renderTable(rows: readonly BundleBenchRow[], runs: number): string {
  const mark = (ok: boolean) => (ok ? "yes" : "**no**");
  const lines = [
    `| Function | Kind | Minified (KB) | gzip (KB) | Cold import p50 (ms) | p90 (ms) | ≤ ${MAX_BUNDLE_BYTES / 1000} KB | < ${MAX_COLD_IMPORT_MS} ms |`,
    "|---|---|---:|---:|---:|---:|:---:|:---:|",
  ];
  for (const row of rows) {
    lines.push(
      `| ${row.id} | ${row.kind} | ${kb(row.bytes)} | ${kb(row.gzipBytes)} | ` +
        `${row.coldImportMs.p50.toFixed(1)} | ${row.coldImportMs.p90.toFixed(1)} | ` +
        `${mark(row.withinSize)} | ${mark(row.withinColdImport)} |`,
    );
  }
  const largest = Math.max(...rows.map((row) => row.bytes));
  const slowest = Math.max(...rows.map((row) => row.coldImportMs.p50));
  const withinSize = rows.filter((row) => row.withinSize).length;
  lines.push("");
  lines.push(
    `${rows.length} functions, ${withinSize} within ${MAX_BUNDLE_BYTES / 1000} KB; largest ${kb(largest)} KB, ` +
      `slowest cold import p50 ${slowest.toFixed(1)} ms. ${runs} fresh \`node\` ${process.version} processes per ` +
      "function; KB = 1,000 bytes.",
  );
  return lines.join("\n");
}

if (isEntryPoint(import.meta.url)) await runBundlesBench();
