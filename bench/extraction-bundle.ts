/**
 * Builds the extraction layer as a Lambda asset would ship it: bench/extraction-entry.ts bundled
 * with the project's esbuild options (lib/bundling.ts) plus the OCR runtime copied beside it
 * (lib/extraction-asset.ts). Used by test/infra/extraction-bundle.test.ts to prove the asset
 * works offline, and by bench/documents.ts to measure sizes and cold imports.
 */
import { mkdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { build, type BuildOptions } from "esbuild";
import { ESBUILD_OPTIONS, EXTRACTION_THREAD_ENTRY } from "../lib/bundling.ts";
import { copyExtractionRuntimeFiles, EXTRACTION_EXTERNAL_MODULES } from "../lib/extraction-asset.ts";
import { projectPath } from "../lib/project.ts";

export const EXTRACTION_BUILD_OPTIONS = {
  ...ESBUILD_OPTIONS,
  external: [...ESBUILD_OPTIONS.external, ...EXTRACTION_EXTERNAL_MODULES],
  logLevel: "error",
} satisfies BuildOptions;

export interface ExtractionAsset {
  dir: string;
  /** The bundle's entry file. */
  entry: string;
  bundleBytes: number;
  runtimeBytes: number;
}

/**
 * `splitting`: esbuild's code splitting, which puts each lazily imported format (and its library)
 * in its own file, so importing the registry does not parse them; the project bundles one file
 * per function today, which inlines them.
 */
export async function buildExtractionAsset(dir: string, options: { splitting?: boolean; entry?: string } = {}): Promise<ExtractionAsset> {
  mkdirSync(dir, { recursive: true });
  const entryPoint = options.entry ?? projectPath("bench/extraction-entry.ts");
  const result = await build({
    ...EXTRACTION_BUILD_OPTIONS,
    // The extraction thread is an entry of its own beside index.mjs, as in the function's asset.
    entryPoints: { index: entryPoint, [EXTRACTION_THREAD_ENTRY.name]: projectPath(EXTRACTION_THREAD_ENTRY.path) },
    metafile: true,
    outdir: dir,
    outExtension: { ".js": ".mjs" },
    ...(options.splitting ? { splitting: true } : {}),
  });
  const bundleBytes = Object.entries(result.metafile.outputs)
    .filter(([file]) => file.endsWith(".mjs"))
    .reduce((sum, [, output]) => sum + output.bytes, 0);
  const runtimeBytes = copyExtractionRuntimeFiles(dir);
  const entry = join(dir, "index.mjs");
  statSync(entry);
  return { dir, entry, bundleBytes, runtimeBytes };
}
