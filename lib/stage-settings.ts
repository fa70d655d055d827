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

export interface MethodThrottle {
  /** Requests per second, refilled steadily. */
  rateLimit: number;
  burstLimit: number;
}

/**
 * API Gateway method-level throttles of the public routes, by the function that serves them, in
 * place of the stage's default (which API Gateway applies to each method): well below it, so a
 * flood of anonymous requests is refused at the edge (429, no Lambda run, no table write) at a rate
 * the functions and the table can afford. A method's bucket is shared by all its callers (every page
 * of every organization): per-visitor and per-page limits stay in the functions, and per-client
 * limits at the edge are the opt-in WAF rules (`-c waf=true`, lib/constructs/web-acl.ts).
 */
export const PUBLIC_METHOD_THROTTLES = {
  dev: {
    OpenApiDocument: { rateLimit: 5, burstLimit: 10 },
    ApiReference: { rateLimit: 5, burstLimit: 10 },
    HostedPage: { rateLimit: 10, burstLimit: 20 },
    HostedSignIn: { rateLimit: 2, burstLimit: 5 },
    HostedSignInLink: { rateLimit: 5, burstLimit: 10 },
    HostedSession: { rateLimit: 5, burstLimit: 10 },
    HostedSearch: { rateLimit: 10, burstLimit: 20 },
    HostedChat: { rateLimit: 5, burstLimit: 10 },
    // A hit's source file and the page's MCP server are counted as searches by the functions.
    HostedDocumentFile: { rateLimit: 10, burstLimit: 20 },
    HostedMcp: { rateLimit: 10, burstLimit: 20 },
  },
  prod: {
    OpenApiDocument: { rateLimit: 20, burstLimit: 40 },
    ApiReference: { rateLimit: 20, burstLimit: 40 },
    HostedPage: { rateLimit: 50, burstLimit: 100 },
    HostedSignIn: { rateLimit: 10, burstLimit: 20 },
    HostedSignInLink: { rateLimit: 20, burstLimit: 40 },
    HostedSession: { rateLimit: 20, burstLimit: 40 },
    HostedSearch: { rateLimit: 50, burstLimit: 100 },
    // Each answer holds a model stream open for up to a minute and costs tokens.
    HostedChat: { rateLimit: 20, burstLimit: 40 },
    HostedDocumentFile: { rateLimit: 50, burstLimit: 100 },
    HostedMcp: { rateLimit: 50, burstLimit: 100 },
  },
} as const satisfies Record<Stage, Record<string, MethodThrottle>>;

/** The throttle of a public function's methods on a stage; a public function without one is a mistake. */
export function publicMethodThrottle(stage: Stage, functionId: string): MethodThrottle {
  const throttles: Record<string, MethodThrottle> = PUBLIC_METHOD_THROTTLES[stage];
  const throttle = throttles[functionId];
  if (!throttle) throw new Error(`public function ${functionId} has no method throttle in lib/stage-settings.ts`);
  return throttle;
}

/**
 * The opt-in AWS WAF rules (`-c waf=true`): requests one client address may make in any five
 * minutes, to the public routes and to the whole API, before WAF blocks it (403) for the rest of
 * the window. Rate-based rules count over a sliding five-minute window per source IP.
 */
export const WAF_RATE_LIMITS = {
  publicRoutesPerFiveMinutes: 300,
  allRoutesPerFiveMinutes: 3000,
} as const;
