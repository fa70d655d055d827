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
 * SDK clients left out of the bundles and taken from the AWS SDK that the Lambda Node.js runtime
 * ships. Only the S3 Vectors backend and the BEDROCK embedding provider use them (search, the ingest
 * and delete workers, the reconciler), and their code imports them with `await import(...)` on first
 * use (loadS3VectorsSdk, loadBedrockSdk), never at cold start.
 * Measured (bench/bundles.ts): left out, search is 484 KB and imports in 70 ms; bundled with static
 * imports it is 579 KB and 81 ms (the ingest worker 639 against 733 KB); bundled behind the dynamic
 * import it would be 30 KB larger still, as esbuild must then keep every export of the client.
 * The price: the first vector or embedding call of a container loads the runtime's copy of the
 * client, about 75 ms for S3 Vectors and 45 ms more for Bedrock (from node_modules on this
 * machine), and these two clients run the runtime's SDK version rather than the one the tests pin.
 * Tests and local mode run from source and load the pinned copies from node_modules.
 */
export const RUNTIME_SDK_MODULES: string[] = ["@aws-sdk/client-s3vectors", "@aws-sdk/client-bedrock-runtime"];

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
  // a bundled, minified ESM SDK imports faster than the runtime's copy. Except RUNTIME_SDK_MODULES.
  external: RUNTIME_SDK_MODULES,
  alias: ESBUILD_ALIAS,
} satisfies BuildOptions;
