import { spawnSync } from "node:child_process";
import type { BuildOptions } from "esbuild";
import { projectPath } from "./project.ts";

/**
 * How every Lambda is bundled, as plain esbuild options. `AppFunction` maps these onto
 * NodejsFunction's bundling props, and the benchmark bundles with this object directly, so both
 * measure and ship the same artefact.
 */

/** Matches the Lambda runtime in `AppFunction` (nodejs24.x). */
export const NODE_TARGET = "node24";

/**
 * Some CommonJS dependencies call `require` for Node built-ins; an ESM bundle has no `require`
 * unless one is created.
 */
export const ESM_REQUIRE_BANNER = "import { createRequire } from 'module';const require = createRequire(import.meta.url);";

/**
 * Module replacements, by the import path they stand in for. The SDK clients import their default
 * credential chain from `@aws-sdk/credential-provider-node`; in Lambda credentials always come from
 * environment variables, so the chain (about 90 KB: SSO, INI, process, web identity and IMDS
 * providers with their nested clients) becomes `fromEnv` alone. See that module for why it is safe.
 * Absolute paths: the alias is resolved from esbuild's working directory, not from the importer
 * (CDK runs the project's own esbuild, so the path is valid where it bundles).
 */
export const ESBUILD_ALIAS: Record<string, string> = {
  "@aws-sdk/credential-provider-node": projectPath("functions/shared/platform/aws-credentials-from-env.ts"),
};

/**
 * Every dependency is bundled, the S3 Vectors and Bedrock Runtime clients included. They used to
 * be taken from the AWS SDK the Lambda runtime ships, which saved about 100 KB per function that
 * uses them; but the runtime's version is not documented per client, so the deployed code path ran a
 * client no test had loaded. Bundled, functions run the versions package-lock.json pins and the
 * tests load. They stay behind `lazyImport(() => import(...))` (platform/lazy-import.ts), so they are
 * evaluated on first use rather than at cold start. Measured in bench/bundles.ts.
 */

/**
 * Set in every deployed bundle: code that exists only for the local stack (the embedded vector
 * store) is behind `process.env.KIS_DEPLOYED_BUNDLE === "true"`, which the minifier folds, so the
 * bundle leaves it out. Unbundled (the local stack, tests) the variable is unset.
 */
export const DEPLOYED_BUNDLE_DEFINE: Record<string, string> = { "process.env.KIS_DEPLOYED_BUNDLE": JSON.stringify("true") };

export const ESBUILD_OPTIONS = {
  bundle: true,
  platform: "node",
  target: NODE_TARGET,
  format: "esm",
  // The `module` entry points of the AWS SDK are ESM; preferring them shrinks the bundle by a third
  // and halves cold-start import time compared with the CommonJS `main` builds.
  mainFields: ["module", "main"],
  minify: true,
  sourcemap: true,
  // Stack traces need only the mappings; embedding the sources would double the asset size.
  sourcesContent: false,
  banner: { js: ESM_REQUIRE_BANNER },
  // The SDK is bundled rather than taken from the runtime: it pins the version we test against and
  // a bundled, minified ESM SDK imports faster than the runtime's copy.
  external: [] as string[],
  alias: ESBUILD_ALIAS,
  define: DEPLOYED_BUNDLE_DEFINE,
} satisfies BuildOptions;

/**
 * Functions that extract documents (the ingest worker) are bundled with esbuild's code splitting:
 * each format module and its library (pdf.js, mammoth, SheetJS...) becomes a file of its own that
 * Node reads on the first document of that format, so a worker that sees text pays no cold start
 * for them. NodejsFunction writes a single `--outfile` and cannot split, so AppFunction runs
 * esbuild itself for these (bundleSplit) with these options added.
 */
export const SPLIT_OPTIONS = {
  splitting: true,
  entryNames: "[name]",
  chunkNames: "chunks/[name]-[hash]",
  outExtension: { ".js": ".mjs" },
} satisfies BuildOptions;

/**
 * The second entry of a function that extracts documents: the extraction thread each document is
 * read in (functions/shared/extraction/isolation.ts), written beside index.mjs under this name.
 */
export const EXTRACTION_THREAD_ENTRY = { name: "extraction-thread", path: "functions/shared/extraction/thread.ts" };

/** The entry points of a split bundle, by output name: the handler as `index`, and the extraction thread. */
export function splitEntryPoints(entry: string): Record<string, string> {
  return { index: entry, [EXTRACTION_THREAD_ENTRY.name]: projectPath(EXTRACTION_THREAD_ENTRY.path) };
}

/** ESBUILD_OPTIONS and SPLIT_OPTIONS on esbuild's command line, as NodejsFunction would spell them. */
export function splitBundleArguments(entry: string, outdir: string, external: readonly string[]): string[] {
  const options = { ...ESBUILD_OPTIONS, ...SPLIT_OPTIONS };
  return [
    ...Object.entries(splitEntryPoints(entry)).map(([name, path]) => `${name}=${path}`),
    "--bundle",
    `--outdir=${outdir}`,
    `--platform=${options.platform}`,
    `--target=${options.target}`,
    `--format=${options.format}`,
    `--main-fields=${options.mainFields.join(",")}`,
    ...(options.minify ? ["--minify"] : []),
    ...(options.sourcemap ? ["--sourcemap"] : []),
    `--sources-content=${options.sourcesContent}`,
    `--banner:js=${options.banner.js}`,
    "--splitting",
    `--entry-names=${options.entryNames}`,
    `--chunk-names=${options.chunkNames}`,
    "--out-extension:.js=.mjs",
    ...[...options.external, ...external].map((module) => `--external:${module}`),
    ...Object.entries(options.alias).map(([module, replacement]) => `--alias:${module}=${replacement}`),
    ...Object.entries(options.define).map(([name, value]) => `--define:${name}=${value}`),
    "--log-level=warning",
  ];
}

/** Runs the project's esbuild with splitBundleArguments; throws with esbuild's output when it fails. */
export function bundleSplit(entry: string, outdir: string, external: readonly string[]): void {
  const result = spawnSync(projectPath("node_modules/.bin/esbuild"), splitBundleArguments(entry, outdir, external), {
    cwd: projectPath("."),
    encoding: "utf8",
  });
  if (result.status !== 0) throw new Error(`esbuild failed for ${entry}: ${result.stderr || result.error?.message}`);
}
