import type { Stage } from "./config.ts";

/**
 * The per-stage settings that the local stack needs as well as the CDK stack, in a module that
 * imports nothing from aws-cdk-lib, so the local gateway can read them without loading the CDK.
 */
export const AUTHORIZER_CACHE_TTL_SECONDS = {
  // Short, so a revoked key stops working within a minute while testing.
  dev: 60,
  // Longer, to spare a table read per request; revocation takes effect within five minutes.
  prod: 300,
} as const satisfies Record<Stage, number>;
