import type { BuildOptions } from "esbuild";

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
} satisfies BuildOptions;
