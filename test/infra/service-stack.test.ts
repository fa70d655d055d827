import { VECTOR_STORES } from "../../functions/shared/vector-store/registry.ts";
import { DEFAULT_CHAT_MODELS } from "../../functions/shared/domain/catalogs/llm-providers.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CfnElement } from "aws-cdk-lib";
import { Match, Template } from "aws-cdk-lib/assertions";
import type { IConstruct } from "constructs";
import { ERROR_STATUS, errorEnvelope, JSON_CONTENT_TYPE } from "../../functions/shared/http/envelope.ts";
import {
  ALL_INDEXES,
  LIST_SORT_KEY,
  PARTITION_KEY,
  SORT_KEY,
  TTL_ATTRIBUTE,
} from "../../functions/shared/db/dynamo/table-schema.ts";
import { ENV } from "../../functions/shared/platform/env-names.ts";
import { GATEWAY_ERRORS, type GatewayError } from "../../functions/shared/http/gateway-responses.ts";
import { configFromContext, type Stage, stageConfig } from "../../lib/config.ts";
import type { AppFunction } from "../../lib/constructs/app-function.ts";
import { STAGING_PREFIX } from "../../lib/constructs/file-bucket.ts";
import { API_STAGE_NAME } from "../../lib/constructs/rest-api.ts";
import { AUTHORIZER, type FunctionAccess, HTTP_FUNCTIONS, ROUTES } from "../../lib/routes.ts";
import { ServiceStack } from "../../lib/stacks/service-stack.ts";
import { QUEUES, SCHEDULED_FUNCTIONS, visibilityTimeoutSeconds, WORKERS } from "../../lib/workers.ts";
import { isGranted, synthesizedGrants } from "../support/iam.ts";
import { publicMethodThrottle, WAF_RATE_LIMITS } from "../../lib/stage-settings.ts";
import { buildApp, removeOutdir, templateOf } from "./stack-fixture.ts";

interface Built {
  stage: Stage;
  template: Template;
  stack: ServiceStack;
  outdir: string;
}

type Resource = { Type: string; Properties: Record<string, any>; DeletionPolicy?: string };

const built: Partial<Record<Stage, Built>> = {};
const dev = () => built.dev!;
const prod = () => built.prod!;
const both = () => [dev(), prod()];

beforeAll(() => {
  for (const stage of ["dev", "prod"] as const) built[stage] = { stage, ...templateOf(stage) };
});

afterAll(() => {
  for (const entry of Object.values(built)) removeOutdir(entry.outdir);
});

function logicalId(stack: ServiceStack, construct: IConstruct): string {
  return stack.getLogicalId(construct.node.defaultChild as CfnElement);
}

function resourceById(template: Template, id: string): Resource {
  const resource = (template.toJSON().Resources as Record<string, Resource>)[id];
  if (!resource) throw new Error(`no resource ${id}`);
  return resource;
}

const getAtt = (id: string, attribute = "Arn") => ({ "Fn::GetAtt": [id, attribute] });

interface Subject {
  id: string;
  fn: AppFunction;
  access: FunctionAccess;
  worker: boolean;
}

/** Every function of the stack with the access its table entry declares. */
function subjects(stack: ServiceStack): Subject[] {
  const httpFn = (id: string) => stack.functions.get(id)!;
  const workerFn = (id: string) => stack.work.workers.get(id)!;
  return [
    ...HTTP_FUNCTIONS.map((d) => ({ id: d.id, fn: httpFn(d.id), access: d.access, worker: false })),
    { id: AUTHORIZER.id, fn: stack.authorizer, access: AUTHORIZER.access, worker: false },
    ...WORKERS.map((d) => ({ id: d.id, fn: workerFn(d.id), access: d.access, worker: true })),
    ...SCHEDULED_FUNCTIONS.map((d) => ({ id: d.id, fn: stack.scheduled.get(d.id)!, access: d.access, worker: false })),
  ];
}

interface Statement {
  Effect: string;
  Action: string | string[];
  Resource: unknown;
}

/** The statements of every policy attached to the function's role, and all their actions. */
function grantsOf({ template, stack }: Built, fn: AppFunction) {
  const roleRef = JSON.stringify({ Ref: logicalId(stack, fn.fn.role!) });
  const statements = Object.values(template.findResources("AWS::IAM::Policy"))
    .filter((policy) => JSON.stringify(policy.Properties.Roles).includes(roleRef))
    .flatMap((policy) => policy.Properties.PolicyDocument.Statement as Statement[]);
  const actions = new Set(statements.flatMap((statement) => [statement.Action].flat()));
  return { statements, actions };
}

function environmentOf({ template, stack }: Built, fn: AppFunction): Record<string, unknown> {
  return resourceById(template, logicalId(stack, fn.fn)).Properties.Environment.Variables;
}

/** Full path of each API Gateway resource, rebuilt from its PathPart/ParentId chain. */
function resourcePaths(template: Template): Map<string, string> {
  const apiResources = template.findResources("AWS::ApiGateway::Resource");
  const paths = new Map<string, string>();
  const pathOf = (id: string): string => {
    const known = paths.get(id);
    if (known !== undefined) return known;
    const { PathPart, ParentId } = apiResources[id]!.Properties;
    const path = `${ParentId.Ref ? pathOf(ParentId.Ref) : ""}/${PathPart}`;
    paths.set(id, path);
    return path;
  };
  for (const id of Object.keys(apiResources)) pathOf(id);
  return paths;
}

describe("API routes", () => {
  it("creates exactly one method per route table entry and no other", () => {
    dev().template.resourceCountIs("AWS::ApiGateway::Method", ROUTES.length);
  });

  it("puts every route but the public contract behind the TOKEN authorizer with an API key required, proxied to its entry's function", () => {
    const { template, stack } = dev();
    const paths = resourcePaths(template);
    const methods = Object.values(template.findResources("AWS::ApiGateway::Method"));
    const authorizerId = logicalId(stack, stack.api.authorizer);

    for (const route of ROUTES) {
      const method = methods.find(
        (candidate) =>
          candidate.Properties.HttpMethod === route.method && paths.get(candidate.Properties.ResourceId.Ref) === route.path,
      );
      expect(method, `${route.method} ${route.path}`).toBeDefined();
      expect(method!.Properties).toMatchObject(
        route.fn.public
          ? { AuthorizationType: "NONE", ApiKeyRequired: false, Integration: { Type: "AWS_PROXY", IntegrationHttpMethod: "POST" } }
          : {
              AuthorizationType: "CUSTOM",
              AuthorizerId: { Ref: authorizerId },
              ApiKeyRequired: true,
              Integration: { Type: "AWS_PROXY", IntegrationHttpMethod: "POST" },
            },
      );
      if (route.fn.public) expect(method!.Properties.AuthorizerId).toBeUndefined();
      const functionId = logicalId(stack, stack.functions.get(route.fn.id)!.fn);
      expect(JSON.stringify(method!.Properties.Integration.Uri)).toContain(JSON.stringify(getAtt(functionId)));
    }
  });

  it("serves the MCP server's POST and GET /v1/mcp from one function behind the authorizer", () => {
    const { template, stack } = dev();
    const paths = resourcePaths(template);
    const methods = Object.values(template.findResources("AWS::ApiGateway::Method")).filter((method) => paths.get(method.Properties.ResourceId.Ref) === "/v1/mcp");
    expect(methods.map((method) => method.Properties.HttpMethod).sort()).toEqual(["GET", "POST"]);
    const functionId = logicalId(stack, stack.functions.get("Mcp")!.fn);
    for (const method of methods) {
      expect(method.Properties).toMatchObject({ AuthorizationType: "CUSTOM", ApiKeyRequired: true });
      expect(JSON.stringify(method.Properties.Integration.Uri)).toContain(JSON.stringify(getAtt(functionId)));
    }
  });

  it("streams the responses of the chat routes (Lambda response streaming, past the 29-second limit) and buffers every other", () => {
    const { template } = dev();
    const paths = resourcePaths(template);
    for (const method of Object.values(template.findResources("AWS::ApiGateway::Method"))) {
      const route = ROUTES.find((candidate) => candidate.method === method.Properties.HttpMethod && candidate.path === paths.get(method.Properties.ResourceId.Ref))!;
      const integration = method.Properties.Integration;
      if (route.fn.streams) {
        expect(integration.ResponseTransferMode, route.path).toBe("STREAM");
        expect(JSON.stringify(integration.Uri)).toContain("/response-streaming-invocations");
        expect(integration.TimeoutInMillis).toBe(route.fn.timeoutSeconds! * 1000);
      } else {
        expect(integration.ResponseTransferMode ?? "BUFFERED", route.path).toBe("BUFFERED");
      }
    }
    expect(ROUTES.filter((route) => route.fn.streams).map((route) => route.path)).toEqual(["/v1/namespace/{namespaceId}/chat", "/hosted/{slug}/chat"]);
  });

  it("serves a hosted page's source files from a public function that may read the bucket but not write it, embed or query vectors", () => {
    const built = dev();
    const paths = resourcePaths(built.template);
    const method = Object.values(built.template.findResources("AWS::ApiGateway::Method")).find(
      (candidate) => candidate.Properties.HttpMethod === "GET" && paths.get(candidate.Properties.ResourceId.Ref) === "/hosted/{slug}/documents/{documentId}/file",
    );
    expect(method?.Properties).toMatchObject({ AuthorizationType: "NONE", ApiKeyRequired: false });
    const actions = [...grantsOf(built, built.stack.functions.get("HostedDocumentFile")!).actions];
    expect(actions.some((action) => action.startsWith("s3:GetObject"))).toBe(true);
    expect(actions.filter((action) => /^s3:(Put|Delete)|^s3vectors:|^bedrock:|^sqs:/.test(action))).toEqual([]);
  });

  it("shares one function among the routes of an entry", () => {
    const { template, stack } = dev();
    const methods = Object.values(template.findResources("AWS::ApiGateway::Method"));
    for (const definition of HTTP_FUNCTIONS) {
      const target = JSON.stringify(getAtt(logicalId(stack, stack.functions.get(definition.id)!.fn)));
      const served = methods.filter((method) => JSON.stringify(method.Properties.Integration.Uri).includes(target));
      expect(served.map((method) => method.Properties.HttpMethod).sort(), definition.id).toEqual(
        definition.routes.map((route) => route.method).sort(),
      );
    }
  });

  it("reads the bearer key from the Authorization header and caches the result for the stage's TTL", () => {
    for (const { stage, template, stack } of both()) {
      template.hasResourceProperties("AWS::ApiGateway::Authorizer", {
        Type: "TOKEN",
        IdentitySource: "method.request.header.Authorization",
        AuthorizerResultTtlInSeconds: stageConfig(stage).authorizerCacheTtlSeconds,
        AuthorizerUri: Match.objectLike({
          "Fn::Join": ["", Match.arrayWith([getAtt(logicalId(stack, stack.authorizer.fn))])],
        }),
      });
    }
  });
});

describe("API stage, usage plan and logging", () => {
  it("is a regional API that takes the usage key from the authorizer", () => {
    dev().template.hasResourceProperties("AWS::ApiGateway::RestApi", {
      ApiKeySourceType: "AUTHORIZER",
      EndpointConfiguration: { Types: ["REGIONAL"] },
    });
  });

  it("deploys stage `api` with JSON access logs, error execution logs and the stage's throttle", () => {
    for (const { stage, template } of both()) {
      const { apiThrottle } = stageConfig(stage);
      template.hasResourceProperties("AWS::ApiGateway::Stage", {
        StageName: API_STAGE_NAME,
        AccessLogSetting: { DestinationArn: Match.anyValue(), Format: Match.stringLikeRegexp('"requestId"') },
        MethodSettings: Match.arrayWith([
          {
            HttpMethod: "*",
            ResourcePath: "/*",
            LoggingLevel: "ERROR",
            DataTraceEnabled: false,
            ThrottlingRateLimit: apiThrottle.rateLimit,
            ThrottlingBurstLimit: apiThrottle.burstLimit,
          },
        ]),
      });
    }
  });

  it("gives every public method (hosted pages, /docs, /openapi.json) a throttle of its own, with the stage's logging, and no keyed method one", () => {
    for (const { stage, template } of both()) {
      const [stageResource] = Object.values(template.findResources("AWS::ApiGateway::Stage"));
      const settings = stageResource!.Properties.MethodSettings as { HttpMethod: string; ResourcePath: string; ThrottlingRateLimit: number; ThrottlingBurstLimit: number; LoggingLevel: string }[];
      const publicRoutes = ROUTES.filter((route) => route.fn.public);
      expect(publicRoutes.map((route) => route.path)).toEqual(expect.arrayContaining(["/docs", "/openapi.json", "/hosted/{slug}/search", "/hosted/{slug}/chat", "/hosted/{slug}/sign-in"]));
      expect(settings).toHaveLength(publicRoutes.length + 1);
      for (const route of publicRoutes) {
        const throttle = publicMethodThrottle(stage, route.fn.id);
        const setting = settings.find((entry) => entry.HttpMethod === route.method && entry.ResourcePath === `/${route.path.replaceAll("/", "~1")}`);
        expect(setting, `${stage} ${route.method} ${route.path}`).toMatchObject({ ThrottlingRateLimit: throttle.rateLimit, ThrottlingBurstLimit: throttle.burstLimit, LoggingLevel: "ERROR" });
        // Below the stage's ceiling, so no public method can take the whole stage's share.
        expect(throttle.rateLimit, route.fn.id).toBeLessThan(stageConfig(stage).apiThrottle.rateLimit);
      }
    }
  });

  it("has no WAF web ACL unless -c waf=true", () => {
    dev().template.resourceCountIs("AWS::WAFv2::WebACL", 0);
    dev().template.resourceCountIs("AWS::WAFv2::WebACLAssociation", 0);
  });

  it("with -c waf=true, associates a regional web ACL with per-client rate-based rules on the public routes and on all routes", () => {
    const { app, outdir } = buildApp({ context: { waf: "true" } });
    try {
      const stack = new ServiceStack(app, "KnowledgeIngestionService-dev", { config: configFromContext(app) });
      const template = Template.fromStack(stack);
      template.resourceCountIs("AWS::WAFv2::WebACL", 1);
      const [acl] = Object.values(template.findResources("AWS::WAFv2::WebACL"));
      expect(acl!.Properties.Scope).toBe("REGIONAL");
      expect(acl!.Properties.DefaultAction).toEqual({ Allow: {} });
      const rules = acl!.Properties.Rules as { Name: string; Action: unknown; Statement: { RateBasedStatement: { AggregateKeyType: string; Limit: number; EvaluationWindowSec: number; ScopeDownStatement?: unknown } } }[];
      expect(rules.map((rule) => [rule.Name, rule.Statement.RateBasedStatement.Limit])).toEqual([
        ["PublicRoutesPerClient", WAF_RATE_LIMITS.publicRoutesPerFiveMinutes],
        ["AllRoutesPerClient", WAF_RATE_LIMITS.allRoutesPerFiveMinutes],
      ]);
      for (const rule of rules) {
        expect(rule.Action).toEqual({ Block: {} });
        expect(rule.Statement.RateBasedStatement).toMatchObject({ AggregateKeyType: "IP", EvaluationWindowSec: 300 });
      }
      const scope = JSON.stringify(rules[0]!.Statement.RateBasedStatement.ScopeDownStatement);
      for (const path of ["/hosted/", "/docs", "/openapi.json"]) expect(scope).toContain(`"SearchString":"${path}"`);
      const [association] = Object.values(template.findResources("AWS::WAFv2::WebACLAssociation"));
      expect(JSON.stringify(association!.Properties.ResourceArn)).toContain(logicalId(stack, stack.api.api));
      expect(JSON.stringify(association!.Properties.ResourceArn)).toContain("/stages/");
      expect(association!.Properties.WebACLArn).toEqual({ "Fn::GetAtt": [stack.getLogicalId(stack.api.webAcl!.webAcl), "Arn"] });
    } finally {
      removeOutdir(outdir);
    }
  });

  it("refuses a waf flag that is not true or false", () => {
    const { app, outdir } = buildApp({ context: { waf: "yes" } });
    try {
      expect(() => configFromContext(app)).toThrow(/waf "yes" is not true or false/);
    } finally {
      removeOutdir(outdir);
    }
  });

  it("creates the account role that execution logging needs", () => {
    dev().template.resourceCountIs("AWS::ApiGateway::Account", 1);
  });

  it("binds a usage plan with the per-organization throttle to the stage", () => {
    for (const { stage, template, stack } of both()) {
      const { organizationThrottle } = stageConfig(stage);
      template.hasResourceProperties("AWS::ApiGateway::UsagePlan", {
        Throttle: { RateLimit: organizationThrottle.rateLimit, BurstLimit: organizationThrottle.burstLimit },
        ApiStages: [{ ApiId: { Ref: logicalId(stack, stack.api.api) }, Stage: { Ref: Match.anyValue() } }],
      });
    }
  });
});

describe("gateway responses", () => {
  const expected: [type: string, error: GatewayError][] = [
    ["UNAUTHORIZED", GATEWAY_ERRORS.unauthorized],
    ["ACCESS_DENIED", GATEWAY_ERRORS.forbidden],
    ["INVALID_API_KEY", GATEWAY_ERRORS.forbidden],
    ["MISSING_AUTHENTICATION_TOKEN", GATEWAY_ERRORS.routeNotFound],
    ["RESOURCE_NOT_FOUND", GATEWAY_ERRORS.routeNotFound],
    ["REQUEST_TOO_LARGE", GATEWAY_ERRORS.payloadTooLarge],
    ["THROTTLED", GATEWAY_ERRORS.throttled],
    ["QUOTA_EXCEEDED", GATEWAY_ERRORS.throttled],
    ["DEFAULT_4XX", GATEWAY_ERRORS.badRequest],
    ["DEFAULT_5XX", GATEWAY_ERRORS.internal],
  ];

  it.each(expected)("answers %s with its status and the error envelope", (type, error) => {
    expect(ERROR_STATUS[error.code]).toBe(error.status);
    dev().template.hasResourceProperties("AWS::ApiGateway::GatewayResponse", {
      ResponseType: type,
      StatusCode: String(error.status),
      ResponseParameters: Match.objectLike({ "gatewayresponse.header.Content-Type": `'${JSON_CONTENT_TYPE}'` }),
      ResponseTemplates: { "application/json": JSON.stringify(errorEnvelope(error.code, error.message)) },
    });
  });

  it("tells throttled clients when to retry", () => {
    for (const type of ["THROTTLED", "QUOTA_EXCEEDED"]) {
      dev().template.hasResourceProperties("AWS::ApiGateway::GatewayResponse", {
        ResponseType: type,
        ResponseParameters: Match.objectLike({ "gatewayresponse.header.Retry-After": "'1'" }),
      });
    }
  });

  it("defines no gateway response beyond the mapped ones", () => {
    dev().template.resourceCountIs("AWS::ApiGateway::GatewayResponse", expected.length);
  });
});

describe("functions", () => {
  it("creates one Lambda per HTTP function entry, plus the authorizer, the workers and the scheduled functions", () => {
    dev().template.resourceCountIs("AWS::Lambda::Function", HTTP_FUNCTIONS.length + 1 + WORKERS.length + SCHEDULED_FUNCTIONS.length);
  });

  it("runs every function on the newest Node.js runtime on arm64, logging to its own log group", () => {
    const built = dev();
    for (const { id, fn } of subjects(built.stack)) {
      const { Properties } = resourceById(built.template, logicalId(built.stack, fn.fn));
      expect(Properties, id).toMatchObject({
        Runtime: "nodejs24.x",
        Architectures: ["arm64"],
        Handler: "index.handler",
        LoggingConfig: { LogGroup: { Ref: logicalId(built.stack, fn.logGroup) } },
      });
    }
  });

  it("keeps log groups for the stage's retention", () => {
    for (const { stage, template } of both()) {
      const retention = stageConfig(stage).logRetention;
      const groups = Object.values(template.findResources("AWS::Logs::LogGroup"));
      expect(groups.length).toBe(HTTP_FUNCTIONS.length + 1 + WORKERS.length + SCHEDULED_FUNCTIONS.length + 1);
      for (const group of groups) expect(group.Properties.RetentionInDays).toBe(retention);
    }
  });

  it("gives every function the service environment, and the table's name to those that use it", () => {
    const built = dev();
    const tableId = logicalId(built.stack, built.stack.work.resources.table);
    const usesTable = new Set([...HTTP_FUNCTIONS, ...WORKERS, ...SCHEDULED_FUNCTIONS].filter((definition) => definition.access.table).map((definition) => definition.id));
    for (const { id, fn } of subjects(built.stack)) {
      const environment = environmentOf(built, fn);
      expect(environment, id).toMatchObject({
        NODE_OPTIONS: expect.stringMatching(/^--enable-source-maps( --max-old-space-size=\d+)?$/),
        POWERTOOLS_SERVICE_NAME: "knowledge-ingestion-service",
        POWERTOOLS_LOG_LEVEL: "INFO",
        [ENV.stage]: "dev",
        [ENV.defaultEmbeddingProvider]: "BEDROCK",
      });
      if (usesTable.has(id) || id === "Authorizer") expect(environment[ENV.tableName], id).toEqual({ Ref: tableId });
      else expect(environment[ENV.tableName], id).toBeUndefined();
    }
  });

  it("gives functions of 1 GB or more a V8 heap limit under their memory, the ingest worker's at its memory budget", () => {
    const built = dev();
    const ingest = WORKERS.find((worker) => worker.id === "IngestWorker")!;
    expect(environmentOf(built, built.stack.work.workers.get("IngestWorker")!).NODE_OPTIONS).toBe(
      `--enable-source-maps --max-old-space-size=${ingest.memoryMb - 450}`,
    );
    const search = subjects(built.stack).find((subject) => subject.id === "Search")!;
    expect(environmentOf(built, search.fn).NODE_OPTIONS).toBe("--enable-source-maps");
  });

  it("tells functions where their queues, bucket and vector bucket are only when they may use them", () => {
    const built = dev();
    for (const { id, fn, access } of subjects(built.stack)) {
      const env = environmentOf(built, fn);
      expect(ENV.deleteQueueUrl in env, id).toBe(access.queues?.includes("delete") ?? false);
      expect(ENV.ingestQueueUrl in env, id).toBe(access.queues?.includes("ingest") ?? false);
      expect(ENV.bucketName in env, id).toBe(access.bucket !== undefined);
      expect(ENV.vectorBucketName in env, id).toBe(access.vectors !== undefined);
      if (access.bucket) {
        expect(env[ENV.uploadUrlTtlSeconds]).toBe("3600");
        expect(env[ENV.downloadUrlTtlSeconds]).toBe("3600");
      }
      if (access.vectors) expect(env[ENV.vectorStoreBackend]).toBe("s3vectors");
      // 128 buckets of 10,000 indexes: no tenant ceiling in practice.
      if (access.vectors) expect(env[ENV.vectorBucketSlots], id).toBe("128");
    }
  });

  it("tells workers after how many deliveries their queue gives up", () => {
    const built = dev();
    for (const definition of WORKERS) {
      const env = environmentOf(built, built.stack.work.workers.get(definition.id)!);
      expect(env[ENV.maxReceiveCount]).toBe(String(QUEUES[definition.queue].maxReceiveCount));
    }
  });

  it("uses the worker's own memory and timeout", () => {
    const built = dev();
    for (const definition of WORKERS) {
      const fn = built.stack.work.workers.get(definition.id)!;
      expect(resourceById(built.template, logicalId(built.stack, fn.fn)).Properties).toMatchObject({
        MemorySize: definition.memoryMb,
        Timeout: definition.timeoutSeconds,
      });
    }
  });
});

describe("least privilege", () => {
  const dynamoWrites = ["dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:DeleteItem", "dynamodb:ConditionCheckItem"];

  it("gives functions with read access to the table no DynamoDB write action", () => {
    const built = dev();
    const readers = subjects(built.stack).filter((subject) => subject.access.table === "read");
    expect(readers.length).toBeGreaterThan(0);
    for (const { id, fn } of readers) {
      const { actions } = grantsOf(built, fn);
      expect(actions.has("dynamodb:Query"), id).toBe(true);
      for (const action of dynamoWrites) expect(actions.has(action), `${id} ${action}`).toBe(false);
    }
  });

  it("lets the public hosted-page functions (and the mail worker) write only their own items: rate windows, sign-in links, the service secret", () => {
    const built = dev();
    const expected: Record<string, string[]> = {
      HostedPage: ["SECRET#*"],
      HostedSignIn: ["RATE#*"],
      HostedSession: ["SIGNIN#*", "SECRET#*"],
      HostedSearch: ["RATE#*", "SECRET#*"],
      HostedChat: ["RATE#*", "SECRET#*"],
      HostedDocumentFile: ["RATE#*", "SECRET#*"],
      HostedMcp: ["RATE#*", "SECRET#*"],
      MailWorker: ["SIGNIN#*", "RATE#*"],
    };
    const restricted = subjects(built.stack).filter((subject) => subject.access.writesOnly);
    expect(restricted.map((subject) => subject.id).sort()).toEqual(Object.keys(expected).sort());
    // Every public function that writes at all is restricted.
    for (const definition of HTTP_FUNCTIONS.filter((definition) => definition.public && definition.access.table === "readWrite")) {
      expect(definition.access.writesOnly, definition.id).toBeDefined();
    }
    for (const { id, fn } of restricted) {
      const statements = grantsOf(built, fn).statements.filter((statement) => [statement.Action].flat().some((action) => dynamoWrites.includes(action)));
      expect(statements, id).toHaveLength(1);
      const [statement] = statements as (Statement & { Condition?: Record<string, Record<string, unknown>> })[];
      expect([statement!.Action].flat().sort(), id).toEqual([...dynamoWrites].sort());
      expect(statement!.Condition, id).toEqual({ "ForAllValues:StringLike": { "dynamodb:LeadingKeys": expected[id] } });
      // The table itself, not its indexes (items are written through the table only).
      expect(JSON.stringify(statement!.Resource), id).not.toContain("/index/");
    }
  });

  it("has the integration suite's IAM check refuse a restricted function's write outside its own items", () => {
    const grants = synthesizedGrants();
    const write = (leadingKey: string) => ({ action: "dynamodb:UpdateItem", resource: "table", leadingKey });
    expect(isGranted(grants.HostedSearch!, write("RATE#hosted:x#0"))).toBe(true);
    expect(isGranted(grants.HostedSearch!, write("NS#ns_x"))).toBe(false);
    expect(isGranted(grants.HostedSearch!, write("SIGNIN#abc"))).toBe(false);
    expect(isGranted(grants.HostedSearch!, { action: "dynamodb:UpdateItem", resource: "table" })).toBe(false);
    expect(isGranted(grants.HostedSearch!, { action: "dynamodb:GetItem", resource: "table", leadingKey: "NS#ns_x" })).toBe(true);
    expect(isGranted(grants.UpdateHosting!, write("NS#ns_x"))).toBe(true);
  });

  it("gives functions with read-write access to the table the write actions", () => {
    const built = dev();
    for (const { id, fn } of subjects(built.stack).filter((subject) => subject.access.table === "readWrite")) {
      const { actions } = grantsOf(built, fn);
      for (const action of dynamoWrites) expect(actions.has(action), `${id} ${action}`).toBe(true);
    }
  });

  it("lets only functions with queue access send messages, and only to their own queues", () => {
    const built = dev();
    for (const { id, fn, access } of subjects(built.stack)) {
      const { statements } = grantsOf(built, fn);
      const sending = statements.filter((statement) => [statement.Action].flat().includes("sqs:SendMessage"));
      const targets = sending.flatMap((statement) => [statement.Resource].flat());
      const allowed = (access.queues ?? []).map((queue) =>
        getAtt(logicalId(built.stack, built.stack.work.queues[queue].queue)),
      );
      expect(targets, id).toEqual(allowed);
    }
  });

  it("grants S3 actions only to functions with bucket access, and deletes only with read-write access", () => {
    const built = dev();
    for (const { id, fn, access } of subjects(built.stack)) {
      const actions = [...grantsOf(built, fn).actions];
      expect(actions.some((action) => action.startsWith("s3:")), id).toBe(access.bucket !== undefined);
      expect(actions.includes("s3:DeleteObject*"), id).toBe(access.bucket === "readWrite");
      expect(actions.includes("s3:PutObject"), id).toBe(access.bucket === "put" || access.bucket === "readWrite");
    }
  });

  it("grants each function exactly the S3 Vectors actions of the store operations it declares, and Bedrock only where it embeds", () => {
    const built = dev();
    for (const { id, fn, access } of subjects(built.stack)) {
      const actions = [...grantsOf(built, fn).actions];
      const expected = [...new Set((access.vectors ?? []).flatMap((operation) => VECTOR_STORES.s3vectors.iamActions[operation]))].sort();
      expect(actions.filter((action) => action.startsWith("s3vectors:")).sort(), id).toEqual(expected);
      expect(actions.includes("bedrock:InvokeModel"), id).toBe(access.embeds === true);
    }
  });

  it("trims what nobody calls: no Scan but for the reconciler, no vector writes outside ingestion, no Bedrock for deletions", () => {
    const built = dev();
    const actionsOf = (id: string) => {
      const subject = subjects(built.stack).find((candidate) => candidate.id === id)!;
      return [...grantsOf(built, subject.fn).actions];
    };
    for (const { id, fn } of subjects(built.stack)) {
      const actions = [...grantsOf(built, fn).actions];
      expect(actions.includes("dynamodb:Scan"), id).toBe(id === "Reconciler");
      expect(actions.some((action) => action === "dynamodb:BatchWriteItem" || action.startsWith("dynamodb:*")), id).toBe(false);
      expect(actions.includes("s3vectors:PutVectors"), id).toBe(id === "IngestWorker");
    }
    for (const id of ["DeleteWorker", "Reconciler", "CreateIngestJob"]) expect(actionsOf(id).some((action) => action.startsWith("bedrock:")), id).toBe(false);
    expect(actionsOf("Search").filter((action) => action.startsWith("dynamodb:")).sort()).toEqual(["dynamodb:BatchGetItem", "dynamodb:GetItem", "dynamodb:Query"]);
  });

  it("lets functions that embed subscribe only to the registry's AWS Marketplace products (third-party Bedrock models)", () => {
    const built = dev();
    for (const { id, fn, access } of subjects(built.stack)) {
      const { statements, actions } = grantsOf(built, fn);
      const embeds = access.embeds === true;
      const reranks = access.reranks === true;
      expect(actions.has("aws-marketplace:Subscribe"), id).toBe(embeds || reranks);
      if (!embeds && !reranks) continue;
      const subscribe = statements.find((statement) => [statement.Action].flat().includes("aws-marketplace:Subscribe"));
      const products = [
        ...(embeds ? ["b7568428-a1ab-46d8-bab3-37def50f6f6a", "38e55671-c3fe-4a44-9783-3584906e7cad"] : []),
        ...(reranks ? ["prod-2o5bej62oxkbi"] : []),
      ];
      expect((subscribe as { Condition?: unknown }).Condition, id).toEqual({ "ForAnyValue:StringEquals": { "aws-marketplace:ProductId": products } });
      expect(actions.has("aws-marketplace:ViewSubscriptions"), id).toBe(true);
    }
  });

  it("lets only functions that rerank call Bedrock Rerank, on the registry's rerank models, with Bedrock as the default reranker", () => {
    const built = dev();
    for (const { id, fn, access } of subjects(built.stack)) {
      const { statements, actions } = grantsOf(built, fn);
      expect(actions.has("bedrock:Rerank"), id).toBe(access.reranks === true);
      if (access.reranks !== true) continue;
      const models = statements
        .filter((statement) => [statement.Action].flat().includes("bedrock:InvokeModel"))
        .flatMap((statement) => [statement.Resource].flat())
        .map((resource) => JSON.stringify(resource))
        .filter((resource) => resource.includes("rerank"));
      expect(models.map((resource) => /foundation-model\/([^"]+)/.exec(resource)?.[1])).toEqual(["amazon.rerank-v1:0", "cohere.rerank-v3-5:0"]);
      expect(environmentOf(built, fn).DEFAULT_RERANKER, id).toBe("BEDROCK");
    }
    expect(subjects(built.stack).filter((subject) => subject.access.reranks).map((subject) => subject.id)).toEqual(["Search", "Chat", "Mcp", "HostedSearch", "HostedMcp", "HostedChat"]);
  });

  it("lets only the chat functions stream from Bedrock models and inference profiles, with Bedrock as the default model", () => {
    const built = dev();
    for (const { id, fn, access } of subjects(built.stack)) {
      const { statements, actions } = grantsOf(built, fn);
      expect(actions.has("bedrock:InvokeModelWithResponseStream"), id).toBe(access.chats === true);
      if (access.chats !== true) continue;
      const resources = JSON.stringify(statements.filter((statement) => [statement.Action].flat().includes("bedrock:InvokeModelWithResponseStream")).map((statement) => statement.Resource));
      expect(resources).toContain(":bedrock:*::foundation-model/*");
      expect(resources).toMatch(/:inference-profile\/\*/);
      expect(environmentOf(built, fn).DEFAULT_LLM, id).toBe("BEDROCK");
      expect(environmentOf(built, fn).DEFAULT_CHAT_MODEL, id).toBeUndefined();
    }
    expect(subjects(built.stack).filter((subject) => subject.access.chats).map((subject) => subject.id)).toEqual(["Chat", "HostedChat"]);
  });

  it("scopes vector access to the service's vector bucket, the slot buckets named after it, and their indexes", () => {
    const built = dev();
    const vectorBucketArn = getAtt("VectorBucket", "VectorBucketArn");
    for (const { id, fn, access } of subjects(built.stack).filter((subject) => subject.access.vectors)) {
      const statement = grantsOf(built, fn).statements.find((s) => [s.Action].flat().some((action) => action.startsWith("s3vectors:")));
      const expected = [
        vectorBucketArn,
        { "Fn::Join": ["", [vectorBucketArn, "/index/*"]] },
        { "Fn::Join": ["", [vectorBucketArn, "-*"]] },
        { "Fn::Join": ["", [vectorBucketArn, "-*/index/*"]] },
      ];
      expect(statement?.Resource, `${id} ${access.vectors}`).toEqual(expect.arrayContaining(expected));
      expect(statement?.Resource, `${id} ${access.vectors}`).toHaveLength(expected.length);
    }
  });

  it("lets each function write logs only to its own log group, without managed policies", () => {
    const built = dev();
    for (const { id, fn } of subjects(built.stack)) {
      const role = resourceById(built.template, logicalId(built.stack, fn.fn.role!));
      expect(role.Properties.ManagedPolicyArns, id).toBeUndefined();
      const logs = grantsOf(built, fn).statements.filter((statement) =>
        [statement.Action].flat().some((action) => action.startsWith("logs:")),
      );
      expect(logs.flatMap((statement) => [statement.Resource].flat()), id).toEqual([
        getAtt(logicalId(built.stack, fn.logGroup)),
      ]);
    }
  });
});

describe("work queues", () => {
  it.each(Object.values(QUEUES))("gives the $name queue a dead-letter queue after $maxReceiveCount receives", (definition) => {
    const { template, stack } = dev();
    const { queue, deadLetterQueue } = stack.work.queues[definition.name];
    const dlqId = logicalId(stack, deadLetterQueue);
    expect(resourceById(template, logicalId(stack, queue)).Properties).toMatchObject({
      RedrivePolicy: { deadLetterTargetArn: getAtt(dlqId), maxReceiveCount: definition.maxReceiveCount },
      SqsManagedSseEnabled: true,
    });
    expect(resourceById(template, dlqId).Properties).toMatchObject({
      MessageRetentionPeriod: 14 * 24 * 3600,
      SqsManagedSseEnabled: true,
    });
  });

  it("sets each consumed queue's visibility timeout from its worker's timeout", () => {
    const { template, stack } = dev();
    for (const worker of WORKERS) {
      const queue = resourceById(template, logicalId(stack, stack.work.queues[worker.queue].queue));
      expect(queue.Properties.VisibilityTimeout).toBe(visibilityTimeoutSeconds(worker));
    }
  });

  it("refuses plain-HTTP access to every queue", () => {
    const { template } = dev();
    const policies = Object.values(template.findResources("AWS::SQS::QueuePolicy"));
    expect(policies.length).toBe(Object.keys(QUEUES).length * 2);
    for (const policy of policies) {
      expect(policy.Properties.PolicyDocument.Statement).toContainEqual(
        expect.objectContaining({ Effect: "Deny", Condition: { Bool: { "aws:SecureTransport": "false" } } }),
      );
    }
  });

  it("alarms as soon as a dead-letter queue holds a message", () => {
    const { template, stack } = dev();
    for (const { deadLetterQueue } of Object.values(stack.work.queues)) {
      template.hasResourceProperties("AWS::CloudWatch::Alarm", {
        Namespace: "AWS/SQS",
        MetricName: "ApproximateNumberOfMessagesVisible",
        Dimensions: [{ Name: "QueueName", Value: getAtt(logicalId(stack, deadLetterQueue), "QueueName") }],
        Threshold: 0,
        ComparisonOperator: "GreaterThanThreshold",
      });
    }
  });

  it("subscribes each worker to its queue with partial batch failures reported", () => {
    const { template, stack } = dev();
    template.resourceCountIs("AWS::Lambda::EventSourceMapping", WORKERS.length);
    for (const worker of WORKERS) {
      template.hasResourceProperties("AWS::Lambda::EventSourceMapping", {
        FunctionName: { Ref: logicalId(stack, stack.work.workers.get(worker.id)!.fn) },
        EventSourceArn: getAtt(logicalId(stack, stack.work.queues[worker.queue].queue)),
        BatchSize: worker.batchSize,
        FunctionResponseTypes: ["ReportBatchItemFailures"],
      });
    }
  });
});

describe("alarms", () => {
  it("notify one SNS topic, given as the AlarmTopicArn output, when they fire and when they recover", () => {
    const { template, stack } = dev();
    const topic = { Ref: logicalId(stack, stack.alarmTopic) };
    const alarms = Object.values(template.findResources("AWS::CloudWatch::Alarm"));
    expect(alarms.length).toBeGreaterThanOrEqual(Object.keys(stack.work.queues).length);
    for (const alarm of alarms) {
      expect(alarm.Properties.AlarmActions).toEqual([topic]);
      expect(alarm.Properties.OKActions).toEqual([topic]);
    }
    template.hasOutput("AlarmTopicArn", { Value: topic });
    const policies = Object.values(template.findResources("AWS::SNS::TopicPolicy"));
    expect(JSON.stringify(policies)).toContain('"aws:SecureTransport":"false"');
  });
});

describe("worker concurrency", () => {
  it.each(["dev", "prod"] as const)("caps each worker's event source mapping at its %s maximum concurrency", (stage) => {
    const { template, stack } = stage === "dev" ? dev() : prod();
    for (const worker of WORKERS) {
      template.hasResourceProperties("AWS::Lambda::EventSourceMapping", {
        FunctionName: { Ref: logicalId(stack, stack.work.workers.get(worker.id)!.fn) },
        ScalingConfig: { MaximumConcurrency: worker.maxConcurrency[stage] },
      });
    }
  });
});

describe("table", () => {
  it("has the keys, indexes and TTL of the data layer's schema, on demand with point-in-time recovery", () => {
    dev().template.hasResourceProperties("AWS::DynamoDB::GlobalTable", {
      KeySchema: [
        { AttributeName: PARTITION_KEY, KeyType: "HASH" },
        { AttributeName: SORT_KEY, KeyType: "RANGE" },
      ],
      BillingMode: "PAY_PER_REQUEST",
      TimeToLiveSpecification: { AttributeName: TTL_ATTRIBUTE, Enabled: true },
      GlobalSecondaryIndexes: ALL_INDEXES.map((index) => ({
        IndexName: index.name,
        KeySchema: [
          { AttributeName: index.partitionKey, KeyType: "HASH" },
          { AttributeName: LIST_SORT_KEY, KeyType: "RANGE" },
        ],
        Projection: { ProjectionType: "ALL" },
      })),
      Replicas: [Match.objectLike({ PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true } })],
    });
  });

  it("is deleted with a dev stack but retained and deletion-protected in prod", () => {
    const [devTable] = Object.values(dev().template.findResources("AWS::DynamoDB::GlobalTable"));
    const [prodTable] = Object.values(prod().template.findResources("AWS::DynamoDB::GlobalTable"));
    expect(devTable!.DeletionPolicy).toBe("Delete");
    expect(devTable!.Properties.Replicas[0].DeletionProtectionEnabled).toBeFalsy();
    expect(prodTable!.DeletionPolicy).toBe("Retain");
    expect(prodTable!.Properties.Replicas[0].DeletionProtectionEnabled).toBe(true);
  });
});

describe("file bucket", () => {
  it("blocks all public access and encrypts with S3-managed keys", () => {
    dev().template.hasResourceProperties("AWS::S3::Bucket", {
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
      BucketEncryption: { ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: "AES256" } }] },
    });
  });

  it("denies every request not made over TLS", () => {
    dev().template.hasResourceProperties("AWS::S3::BucketPolicy", {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Effect: "Deny",
            Action: "s3:*",
            Condition: { Bool: { "aws:SecureTransport": "false" } },
          }),
        ]),
      },
    });
  });

  it("allows browsers to use presigned URLs from the configured origins", () => {
    dev().template.hasResourceProperties("AWS::S3::Bucket", {
      CorsConfiguration: {
        CorsRules: [
          Match.objectLike({
            AllowedMethods: ["PUT", "GET", "HEAD"],
            AllowedOrigins: stageConfig("dev").corsOrigins,
            AllowedHeaders: ["content-type", "content-length"],
            ExposedHeaders: ["ETag"],
          }),
        ],
      },
    });
  });

  it("aborts stale multipart uploads and expires worker scratch files", () => {
    dev().template.hasResourceProperties("AWS::S3::Bucket", {
      LifecycleConfiguration: {
        Rules: Match.arrayWith([
          Match.objectLike({ AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 }, Status: "Enabled" }),
          Match.objectLike({ Prefix: STAGING_PREFIX, ExpirationInDays: 2, Status: "Enabled" }),
        ]),
      },
    });
  });

  it("is retained with a prod stack", () => {
    const [bucket] = Object.values(prod().template.findResources("AWS::S3::Bucket"));
    expect(bucket!.DeletionPolicy).toBe("Retain");
  });
});

describe("outputs", () => {
  it("exports what clients, the key CLI and operators need", () => {
    const outputs = Object.keys(dev().template.toJSON().Outputs);
    expect(outputs.sort()).toEqual(
      [
        "ApiUrl",
        "TableName",
        "BucketName",
        "VectorBucketArn",
        "AlarmTopicArn",
        "UsagePlanId",
        "IngestQueueUrl",
        "IngestDeadLetterQueueUrl",
        "DeleteQueueUrl",
        "DeleteDeadLetterQueueUrl",
        "MailQueueUrl",
        "MailDeadLetterQueueUrl",
      ].sort(),
    );
  });

  it("gives the API base URL including the stage, without a trailing slash", () => {
    const { template, stack } = dev();
    const parts = template.toJSON().Outputs.ApiUrl.Value["Fn::Join"][1] as unknown[];
    expect(parts[0]).toBe("https://");
    expect(parts[1]).toEqual({ Ref: logicalId(stack, stack.api.api) });
    expect(parts.at(-1)).toEqual({ Ref: logicalId(stack, stack.api.api.deploymentStage) });
  });
});

describe("hosted-page sign-in e-mail", () => {
  const signInFunction = (stack: ServiceStack) => stack.functions.get("HostedSignIn")!;
  const mailWorker = (stack: ServiceStack) => stack.work.workers.get("MailWorker")!;

  it("sends nothing without a sender: no SES identity, no SES permission, EMAIL_BACKEND none", () => {
    const { template, stack } = dev();
    template.resourceCountIs("AWS::SES::EmailIdentity", 0);
    for (const { id, fn } of subjects(stack)) expect(grantsOf(dev(), fn).actions.has("ses:SendEmail"), id).toBe(false);
    expect(environmentOf(dev(), signInFunction(stack)).EMAIL_BACKEND).toBe("none");
    expect(environmentOf(dev(), mailWorker(stack)).EMAIL_BACKEND).toBe("none");
  });

  it("queues sign-in requests: the public sign-in function may only send to the mail queue, which the mail worker consumes", () => {
    const { stack } = dev();
    const grants = grantsOf(dev(), signInFunction(stack));
    expect([...grants.actions].filter((action) => action.startsWith("sqs:")).sort()).toEqual(["sqs:GetQueueAttributes", "sqs:GetQueueUrl", "sqs:SendMessage"]);
    expect(JSON.stringify(grants.statements.filter((statement) => [statement.Action].flat().includes("sqs:SendMessage")).map((statement) => statement.Resource))).toContain(
      logicalId(stack, stack.work.queues.mail.queue),
    );
    expect(environmentOf(dev(), signInFunction(stack)).MAIL_QUEUE_URL).toBeDefined();
  });

  it("with -c signInSender, creates the SES identity and lets only the mail worker send from it", () => {
    const { app, outdir } = buildApp({ context: { signInSender: "no-reply@pages.example.com" } });
    try {
      const stack = new ServiceStack(app, "KnowledgeIngestionService-dev", { config: configFromContext(app) });
      const template = Template.fromStack(stack);
      template.hasResourceProperties("AWS::SES::EmailIdentity", { EmailIdentity: "no-reply@pages.example.com" });
      const withSender = { stage: "dev" as const, template, stack, outdir };
      for (const { id, fn } of subjects(stack)) {
        const statements = grantsOf(withSender, fn).statements.filter((statement) => [statement.Action].flat().includes("ses:SendEmail"));
        if (id !== "MailWorker") {
          expect(statements, id).toEqual([]);
          continue;
        }
        expect(JSON.stringify(statements.map((statement) => statement.Resource))).toContain(":identity/no-reply@pages.example.com");
      }
      expect(environmentOf(withSender, mailWorker(stack))).toMatchObject({ EMAIL_BACKEND: "ses", EMAIL_SENDER: "no-reply@pages.example.com" });
      // The sign-in function only learns that a sender exists, to refuse every address alike without one.
      expect(environmentOf(withSender, signInFunction(stack)).EMAIL_BACKEND).toBe("ses");
      expect(environmentOf(withSender, signInFunction(stack)).EMAIL_SENDER).toBeUndefined();
    } finally {
      removeOutdir(outdir);
    }
  });

  it("with -c chatModel, tells the chat functions which Bedrock model answers by default", () => {
    const { app, outdir } = buildApp({ context: { chatModel: "eu.amazon.nova-pro-v1:0" } });
    try {
      const stack = new ServiceStack(app, "KnowledgeIngestionService-dev", { config: configFromContext(app) });
      const withModel = { stage: "dev" as const, template: Template.fromStack(stack), stack, outdir };
      for (const { id, fn, access } of subjects(stack)) {
        expect(environmentOf(withModel, fn).DEFAULT_CHAT_MODEL, id).toBe(access.chats ? "eu.amazon.nova-pro-v1:0" : undefined);
      }
    } finally {
      removeOutdir(outdir);
    }
  });

  it("tells the functions that accept a chat model the deployment's allow-list: the default set, or -c chatModels, with -c chatModel", () => {
    for (const { id, fn, access } of subjects(dev().stack)) {
      const expected = access.chats || access.choosesChatModel ? DEFAULT_CHAT_MODELS.join(",") : undefined;
      expect(environmentOf(dev(), fn).CHAT_MODELS, id).toBe(expected);
    }
    expect(subjects(dev().stack).filter(({ fn }) => environmentOf(dev(), fn).CHAT_MODELS !== undefined).map(({ id }) => id).sort()).toEqual(["Chat", "HostedChat", "UpdateHosting"]);
    const { app, outdir } = buildApp({ context: { chatModel: "eu.amazon.nova-pro-v1:0", chatModels: "meta.llama3-70b-instruct-v1:0" } });
    try {
      const stack = new ServiceStack(app, "KnowledgeIngestionService-dev", { config: configFromContext(app) });
      const built = { stage: "dev" as const, template: Template.fromStack(stack), stack, outdir };
      expect(environmentOf(built, stack.functions.get("Chat")!).CHAT_MODELS).toBe("meta.llama3-70b-instruct-v1:0,eu.amazon.nova-pro-v1:0");
      expect(environmentOf(built, stack.functions.get("UpdateHosting")!).CHAT_MODELS).toBe("meta.llama3-70b-instruct-v1:0,eu.amazon.nova-pro-v1:0");
    } finally {
      removeOutdir(outdir);
    }
  });

  it("refuses a signInSender that is not an e-mail address", () => {
    const { app, outdir } = buildApp({ context: { signInSender: "not-an-address" } });
    try {
      expect(() => configFromContext(app)).toThrow(/not an e-mail address/);
    } finally {
      removeOutdir(outdir);
    }
  });
});
