import { RemovalPolicy } from "aws-cdk-lib";
import { RetentionDays } from "aws-cdk-lib/aws-logs";
import type { Construct } from "constructs";
import { AUTHORIZER_CACHE_TTL_SECONDS } from "./stage-settings.ts";

/**
 * Deployment stages and what differs between them. Everything a construct needs to vary per stage
 * lives here, so a construct never branches on the stage name itself.
 */
export const STAGES = ["dev", "prod"] as const;
export type Stage = (typeof STAGES)[number];

export interface Throttle {
  /** Steady-state requests per second. */
  rateLimit: number;
  /** Requests allowed in a burst above the steady rate. */
  burstLimit: number;
}

export interface StageConfig {
  stage: Stage;
  /** Applies to the stateful resources: table, buckets, log groups. */
  removalPolicy: RemovalPolicy;
  /**
   * Empties the file bucket on stack deletion, so a DESTROY policy can actually delete it. Off
   * everywhere for now: its custom resource stages a handler in the OS temp directory at synth time,
   * and the Deno app may write only to cdk.out (cdk.json). Empty the buckets before destroying dev.
   */
  autoDeleteObjects: boolean;
  tableDeletionProtection: boolean;
  logRetention: RetentionDays;
  authorizerCacheTtlSeconds: number;
  /** Ceiling for the whole API stage, across organizations. */
  apiThrottle: Throttle;
  /** Ceiling per organization, enforced by the usage plan through the authorizer's usage key. */
  organizationThrottle: Throttle;
  /** Origins allowed to PUT/GET presigned URLs from a browser. */
  corsOrigins: string[];
  /**
   * The address sign-in links of protected hosted pages come from, verified as an SES identity the
   * stack creates (`-c signInSender=...`). Null: no e-mail is sent and protected pages admit nobody.
   */
  signInSender: string | null;
  defaultEmbeddingProvider: "BEDROCK";
  /** Reranks searches of namespaces that chose no reranker; Bedrock needs no key. */
  defaultReranker: "BEDROCK";
  /** Answers chats whose hosting or request names no model; Bedrock needs no key. */
  defaultLlm: "BEDROCK";
  /**
   * The Bedrock model or inference profile of that default (`-c chatModel=...`). Null: the
   * region's default (Amazon Nova Lite through the geography's inference profile, domain/catalogs/llm-providers.ts).
   */
  chatModel: string | null;
  /**
   * The Bedrock chat models organizations may name (`-c chatModels=a,b`); `chatModel` is always
   * allowed too. Null: Amazon Nova Micro, Lite and Pro (DEFAULT_CHAT_MODELS, domain/catalogs/llm-providers.ts).
   */
  chatModels: string[] | null;
  /** `-c waf=true`: an AWS WAF web ACL with per-client rate-based rules on the API stage (lib/constructs/web-acl.ts). */
  waf: boolean;
  uploadUrlTtlSeconds: number;
  downloadUrlTtlSeconds: number;
}

const SHARED = {
  defaultEmbeddingProvider: "BEDROCK",
  defaultReranker: "BEDROCK",
  defaultLlm: "BEDROCK",
  uploadUrlTtlSeconds: 3600,
  downloadUrlTtlSeconds: 3600,
} as const;

const PER_STAGE: Record<Stage, Omit<StageConfig, "stage" | "corsOrigins" | "signInSender" | "chatModel" | "chatModels" | "waf" | keyof typeof SHARED>> = {
  dev: {
    removalPolicy: RemovalPolicy.DESTROY,
    autoDeleteObjects: false,
    tableDeletionProtection: false,
    logRetention: RetentionDays.ONE_WEEK,
    authorizerCacheTtlSeconds: AUTHORIZER_CACHE_TTL_SECONDS.dev,
    apiThrottle: { rateLimit: 50, burstLimit: 100 },
    organizationThrottle: { rateLimit: 10, burstLimit: 20 },
  },
  prod: {
    removalPolicy: RemovalPolicy.RETAIN,
    autoDeleteObjects: false,
    tableDeletionProtection: true,
    logRetention: RetentionDays.THREE_MONTHS,
    authorizerCacheTtlSeconds: AUTHORIZER_CACHE_TTL_SECONDS.prod,
    apiThrottle: { rateLimit: 500, burstLimit: 1000 },
    organizationThrottle: { rateLimit: 50, burstLimit: 100 },
  },
};

export function isStage(value: unknown): value is Stage {
  return typeof value === "string" && (STAGES as readonly string[]).includes(value);
}

/** `-c stage=<dev|prod>`; dev when not given. */
export function stageFromContext(scope: Construct): Stage {
  const raw: unknown = scope.node.tryGetContext("stage") ?? "dev";
  if (!isStage(raw)) {
    throw new Error(`Unknown stage ${JSON.stringify(raw)}: pass -c stage=<${STAGES.join("|")}>.`);
  }
  return raw;
}

/**
 * `-c corsOrigins=https://a.example,https://b.example`, or a JSON array in cdk.json. Any origin
 * when not given: a presigned URL is itself the credential, CORS only decides which web pages may
 * use one.
 */
export function corsOriginsFromContext(scope: Construct): string[] {
  const raw: unknown = scope.node.tryGetContext("corsOrigins");
  if (raw === undefined || raw === null || raw === "") return ["*"];
  const list = Array.isArray(raw) ? raw : String(raw).split(",");
  const origins = list.map((origin) => String(origin).trim()).filter((origin) => origin.length > 0);
  if (origins.length === 0) throw new Error("corsOrigins is empty: give at least one origin, or * for any.");
  return origins;
}

/** `-c signInSender=no-reply@example.com`: an e-mail address; absent, no sender. */
export function signInSenderFromContext(scope: Construct): string | null {
  const raw: unknown = scope.node.tryGetContext("signInSender");
  if (raw === undefined || raw === null || raw === "") return null;
  const sender = String(raw).trim();
  if (!/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(sender)) throw new Error(`signInSender ${JSON.stringify(raw)} is not an e-mail address.`);
  return sender;
}

/** `-c chatModel=eu.amazon.nova-pro-v1:0`: a Bedrock model or inference profile id; absent, the region's default. */
export function chatModelFromContext(scope: Construct): string | null {
  const raw: unknown = scope.node.tryGetContext("chatModel");
  if (raw === undefined || raw === null || raw === "") return null;
  const model = String(raw).trim();
  if (!/^[a-zA-Z0-9.:_/-]{1,256}$/.test(model)) throw new Error(`chatModel ${JSON.stringify(raw)} is not a Bedrock model or inference profile id.`);
  return model;
}

/** `-c chatModels=amazon.nova-lite-v1:0,anthropic.claude-3-haiku-20240307-v1:0`, or a JSON array in cdk.json; absent, the default set. */
export function chatModelsFromContext(scope: Construct): string[] | null {
  const raw: unknown = scope.node.tryGetContext("chatModels");
  if (raw === undefined || raw === null || raw === "") return null;
  const models = (Array.isArray(raw) ? raw : String(raw).split(",")).map((model) => String(model).trim()).filter((model) => model.length > 0);
  if (models.length === 0) throw new Error("chatModels is empty: give at least one Bedrock model id, or leave it out for the default set.");
  for (const model of models) {
    if (!/^[a-zA-Z0-9.:_/-]{1,256}$/.test(model)) throw new Error(`chatModels: ${JSON.stringify(model)} is not a Bedrock model or inference profile id.`);
  }
  return models;
}

/** `-c waf=true`; off when not given. */
export function wafFromContext(scope: Construct): boolean {
  const raw: unknown = scope.node.tryGetContext("waf");
  if (raw === undefined || raw === null || raw === "" || raw === false || raw === "false") return false;
  if (raw === true || raw === "true") return true;
  throw new Error(`waf ${JSON.stringify(raw)} is not true or false.`);
}

export function stageConfig(stage: Stage, overrides: Partial<Pick<StageConfig, "corsOrigins" | "signInSender" | "chatModel" | "chatModels" | "waf">> = {}): StageConfig {
  return {
    stage,
    ...PER_STAGE[stage],
    ...SHARED,
    corsOrigins: overrides.corsOrigins ?? ["*"],
    signInSender: overrides.signInSender ?? null,
    chatModel: overrides.chatModel ?? null,
    chatModels: overrides.chatModels ?? null,
    waf: overrides.waf ?? false,
  };
}

/** The configuration selected by the CDK context of `scope` (normally the App). */
export function configFromContext(scope: Construct): StageConfig {
  return stageConfig(stageFromContext(scope), {
    corsOrigins: corsOriginsFromContext(scope),
    signInSender: signInSenderFromContext(scope),
    chatModel: chatModelFromContext(scope),
    chatModels: chatModelsFromContext(scope),
    waf: wafFromContext(scope),
  });
}
