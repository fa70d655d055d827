import { cpSync, existsSync, mkdirSync, readdirSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { projectPath } from "./project.ts";

/**
 * What a bundle that extracts documents (the ingest worker) needs besides its own .mjs file. See
 * functions/shared/extraction/BUNDLING.md for the why and the measured sizes.
 *
 * Everything but OCR bundles into the .mjs (pdf.js, mammoth, SheetJS, fflate, htmlparser2,
 * postal-mime are plain JavaScript). tesseract.js cannot: it starts its engine in a worker thread
 * from a script file of its package, and that script `require`s the WebAssembly core, which reads
 * its .wasm from beside itself. So tesseract.js stays external and is shipped as real packages in
 * the asset's node_modules, pruned to what Node loads, with the trained models the service offers.
 */

/** Left out of the esbuild bundle (add to `external`). */
export const EXTRACTION_EXTERNAL_MODULES = ["tesseract.js"];

/** The OCR languages shipped: each is a `@tesseract.js-data/<model>` package (only its LSTM model folder is copied). */
export const OCR_MODELS = ["eng", "fra"];

interface PackageFiles {
  name: string;
  /** Paths inside the package to copy (files or folders); the package.json always comes along. */
  paths: readonly string[];
}

/**
 * The core build Node loads depends on the CPU's WebAssembly features (relaxed SIMD, SIMD, or
 * neither), so all three ship. In tesseract.js 7.0.0 Node always loads the full builds, never the
 * smaller LSTM-only ones: its Node `getCore` compares the boolean `lstmOnly` it is given against
 * engine-mode numbers. The `.wasm.js` (base64-inlined) variants are for browsers.
 */
const CORE_BUILDS = ["tesseract-core-relaxedsimd", "tesseract-core-simd", "tesseract-core"];

export const OCR_RUNTIME_PACKAGES: readonly PackageFiles[] = [
  { name: "tesseract.js", paths: ["src"] },
  { name: "tesseract.js-core", paths: CORE_BUILDS.flatMap((build) => [`${build}.js`, `${build}.wasm`]) },
  // The worker script's own dependencies (node-fetch is only loaded where fetch is missing, never on Node 18+).
  { name: "bmp-js", paths: ["index.js", "lib"] },
  { name: "is-url", paths: ["index.js"] },
  { name: "regenerator-runtime", paths: ["runtime.js"] },
  { name: "wasm-feature-detect", paths: ["dist"] },
  ...OCR_MODELS.map((model) => ({ name: `@tesseract.js-data/${model}`, paths: ["4.0.0_best_int"] })),
];

/**
 * Copies the OCR runtime into `<assetDir>/node_modules`, where Node resolves the external
 * `tesseract.js` import of the bundle (and the models, through import.meta.resolve). Returns the
 * bytes copied.
 */
export function copyExtractionRuntimeFiles(assetDir: string, fromProject = projectPath("node_modules")): number {
  let bytes = 0;
  for (const pkg of OCR_RUNTIME_PACKAGES) {
    const source = join(fromProject, pkg.name);
    if (!existsSync(join(source, "package.json"))) throw new Error(`${pkg.name} is not installed in ${fromProject}`);
    const target = join(assetDir, "node_modules", pkg.name);
    for (const path of ["package.json", ...pkg.paths]) {
      const from = join(source, path);
      if (!existsSync(from)) throw new Error(`${pkg.name}/${path} is missing`);
      mkdirSync(dirname(join(target, path)), { recursive: true });
      cpSync(from, join(target, path), { recursive: true });
      bytes += sizeOf(from);
    }
  }
  return bytes;
}

function sizeOf(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.size;
  return readdirSync(path).reduce((sum, name) => sum + sizeOf(join(path, name)), 0);
}

/** Relative paths and sizes of what copyExtractionRuntimeFiles writes, for BUNDLING.md and the benchmark. */
export function describeCopiedFiles(assetDir: string): { path: string; bytes: number }[] {
  const root = join(assetDir, "node_modules");
  const out: { path: string; bytes: number }[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else out.push({ path: relative(assetDir, path), bytes: statSync(path).size });
    }
  };
  if (existsSync(root)) walk(root);
  return out;
}
