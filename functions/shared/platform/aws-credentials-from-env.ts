import { fromEnv, type FromEnvInit } from "@aws-sdk/credential-provider-env";

/**
 * Stands in for `@aws-sdk/credential-provider-node` in the Lambda bundles (an esbuild alias in
 * lib/bundling.ts); nothing imports it by name. The SDK's default chain also tries SSO, INI files,
 * credential processes, web identity and the instance metadata service, each with its own nested
 * client: about 90 KB of every bundle. Lambda always hands the function's role credentials over as
 * environment variables (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN), and so does
 * the local stack, so the first link of the chain is the only one that can ever answer.
 *
 * Source runs (tests, `npm run dev`) are not bundled and keep the full chain.
 */
export const defaultProvider = (init?: FromEnvInit) => fromEnv(init);
