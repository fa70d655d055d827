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
 * tests load. They stay behind `await import(...)` (loadS3VectorsSdk, loadBedrockSdk), so they are
 * evaluated on first use rather than at cold start. Measured in bench/bundles.ts.
 */

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
} satisfies BuildOptions;
