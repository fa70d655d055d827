import { Duration, Fn, Stack, Validations } from "aws-cdk-lib";
import {
  AccessLogFormat,
  ApiKeySourceType,
  AuthorizationType,
  EndpointType,
  IdentitySource,
  LambdaIntegration,
  ResponseTransferMode,
  LogGroupLogDestination,
  MethodLoggingLevel,
  ResponseType,
  RestApi,
  TokenAuthorizer,
  type UsagePlan,
} from "aws-cdk-lib/aws-apigateway";
import type { IFunction } from "aws-cdk-lib/aws-lambda";
import { LogGroup } from "aws-cdk-lib/aws-logs";
import { Construct } from "constructs";
import { errorEnvelope, JSON_CONTENT_TYPE } from "../../functions/shared/http/envelope.ts";
import { GATEWAY_ERRORS, type GatewayError } from "../../functions/shared/http/gateway-responses.ts";
import type { StageConfig } from "../config.ts";
import type { HttpFunctionDefinition, Route } from "../routes.ts";
import { publicMethodThrottle } from "../stage-settings.ts";
import { ApiWebAcl } from "./web-acl.ts";

/**
 * The route paths already start with `/v1`, so the stage is not named after the version: the base
 * URL is `https://<api-id>.execute-api.<region>.amazonaws.com/api` and a route is `<base>/v1/...`.
 */
export const API_STAGE_NAME = "api";

export interface GatewayResponseMapping {
  type: ResponseType;
  error: GatewayError;
  headers?: Record<string, string>;
}

/**
 * What API Gateway answers by itself, before or instead of a handler, rewritten into the service's
 * error envelope so that clients see one error shape on every path.
 */
export const GATEWAY_RESPONSES: GatewayResponseMapping[] = [
  { type: ResponseType.UNAUTHORIZED, error: GATEWAY_ERRORS.unauthorized },
  { type: ResponseType.ACCESS_DENIED, error: GATEWAY_ERRORS.forbidden },
  // The organization's usage key is missing from the usage plan: the key is valid but may not call.
  { type: ResponseType.INVALID_API_KEY, error: GATEWAY_ERRORS.forbidden },
  // API Gateway reports an unknown path or a method the path does not have (any method: the local
  // gateway answers FOO and CONNECT the same way) as a missing authentication token.
  { type: ResponseType.MISSING_AUTHENTICATION_TOKEN, error: GATEWAY_ERRORS.routeNotFound },
  { type: ResponseType.RESOURCE_NOT_FOUND, error: GATEWAY_ERRORS.routeNotFound },
  // Bodies over 10 MB; also the only response observed with a status of its own for a request whose
  // Lambda event exceeds 6 MB (see MAX_LAMBDA_EVENT_BYTES for why no 5XX type is remapped to 413).
  { type: ResponseType.REQUEST_TOO_LARGE, error: GATEWAY_ERRORS.payloadTooLarge },
  // Token buckets refill every second. The usage plan sets no quota, so QUOTA_EXCEEDED appears only
  // if an operator adds one, and is then answered the same way.
  { type: ResponseType.THROTTLED, error: GATEWAY_ERRORS.throttled, headers: { "Retry-After": "1" } },
  { type: ResponseType.QUOTA_EXCEEDED, error: GATEWAY_ERRORS.throttled, headers: { "Retry-After": "1" } },
  // Setting DEFAULT_4XX's status sets it for every 4XX type not mapped above (BAD_REQUEST_BODY,
  // UNSUPPORTED_MEDIA_TYPE, EXPIRED_TOKEN...): they all become 400 bad_request, the one code/status
  // pair that fits them all. The local gateway answers an oversized header section the same way.
  { type: ResponseType.DEFAULT_4XX, error: GATEWAY_ERRORS.badRequest },
  // Authorizer crashes and integration timeouts alike: the spec pairs internal_server_error with 500.
  { type: ResponseType.DEFAULT_5XX, error: GATEWAY_ERRORS.internal },
];

/** The body of a gateway response: a mapping template, so it must hold no VTL syntax. */
export function gatewayResponseBody(error: GatewayError): string {
  const body = JSON.stringify(errorEnvelope(error.code, error.message));
  if (/[$#]/.test(body)) throw new Error(`gateway response for ${error.code} would be read as VTL: ${body}`);
  return body;
}

export interface ServiceApiProps {
  config: StageConfig;
  authorizerFunction: IFunction;
  routes: Route[];
  /** The function that serves a route table entry. */
  functionFor: (definition: HttpFunctionDefinition) => IFunction;
}

/**
 * The public REST API: every route of the route table behind the TOKEN authorizer, rate-limited per
 * organization by a usage plan keyed on the usage identifier the authorizer returns.
 */
export class ServiceApi extends Construct {
  readonly api: RestApi;
  readonly authorizer: TokenAuthorizer;
  readonly usagePlan: UsagePlan;
  /** `https://<api-id>.execute-api.<region>.amazonaws.com/api`, without a trailing slash. */
  readonly baseUrl: string;
  /** The stage's AWS WAF web ACL, with `-c waf=true`. */
  readonly webAcl?: ApiWebAcl;

  constructor(scope: Construct, id: string, props: ServiceApiProps) {
    super(scope, id);
    const { config } = props;

    this.authorizer = new TokenAuthorizer(this, "Authorizer", {
      handler: props.authorizerFunction,
      identitySource: IdentitySource.header("Authorization"),
      resultsCacheTtl: Duration.seconds(config.authorizerCacheTtlSeconds),
    });

    const accessLogs = new LogGroup(this, "AccessLogs", {
      retention: config.logRetention,
      removalPolicy: config.removalPolicy,
    });

    this.api = new RestApi(this, "RestApi", {
      description: `knowledge-ingestion-service API (${config.stage})`,
      endpointConfiguration: { types: [EndpointType.REGIONAL] },
      // Execution logging needs the account-level role that lets API Gateway write to CloudWatch.
      cloudWatchRole: true,
      // The usage plan identifies an organization by the usage key the authorizer returns, not by
      // an x-api-key header: clients send only their bearer key.
      apiKeySourceType: ApiKeySourceType.AUTHORIZER,
      defaultMethodOptions: {
        authorizer: this.authorizer,
        authorizationType: AuthorizationType.CUSTOM,
        apiKeyRequired: true,
      },
      deployOptions: {
        stageName: API_STAGE_NAME,
        accessLogDestination: new LogGroupLogDestination(accessLogs),
        accessLogFormat: AccessLogFormat.jsonWithStandardFields(),
        loggingLevel: MethodLoggingLevel.ERROR,
        dataTraceEnabled: false,
        throttlingRateLimit: config.apiThrottle.rateLimit,
        throttlingBurstLimit: config.apiThrottle.burstLimit,
        // Public methods get their own buckets (lib/stage-settings.ts), with the stage's logging.
        methodOptions: Object.fromEntries(
          props.routes
            .filter((route) => route.fn.public)
            .map((route) => {
              const throttle = publicMethodThrottle(config.stage, route.fn.id);
              return [
                `${route.path}/${route.method}`,
                { throttlingRateLimit: throttle.rateLimit, throttlingBurstLimit: throttle.burstLimit, loggingLevel: MethodLoggingLevel.ERROR, dataTraceEnabled: false },
              ];
            }),
        ),
      },
    });
    // RestApi adds an `Endpoint` output with a trailing slash; the stack outputs `ApiUrl` instead.
    this.api.node.tryRemoveChild("Endpoint");

    for (const route of props.routes) {
      const resource = this.api.root.resourceForPath(route.path);
      const method = resource.addMethod(
        route.method,
        // Console test invocations would need a second, stage-less invoke permission per method.
        new LambdaIntegration(props.functionFor(route.fn), {
          allowTestInvoke: false,
          ...(route.fn.streams
            ? { responseTransferMode: ResponseTransferMode.STREAM, timeout: Duration.seconds(route.fn.timeoutSeconds ?? 29) }
            : {}),
        }),
        route.fn.public ? { authorizationType: AuthorizationType.NONE, apiKeyRequired: false } : undefined,
      );
      if (route.fn.public) {
        Validations.of(method).acknowledge(
          {
            id: "AwsSolutions-APIG4",
            reason:
              "Public by design: the published API contract (it holds no data), and hosted pages, which their owner publishes (a protected page admits no one without sign-in; searches are limited per visitor and per page in the function).",
          },
          { id: "AwsSolutions-COG4", reason: "Public by design (the API contract, hosted pages); no Cognito user identity applies." },
        );
      }
    }

    for (const { type, error, headers = {} } of GATEWAY_RESPONSES) {
      this.api.addGatewayResponse(`GatewayResponse${type.responseType}`, {
        type,
        statusCode: String(error.status),
        responseHeaders: Object.fromEntries(
          Object.entries({ "Content-Type": JSON_CONTENT_TYPE, ...headers }).map(([name, value]) => [name, `'${value}'`]),
        ),
        templates: { "application/json": gatewayResponseBody(error) },
      });
    }

    this.usagePlan = this.api.addUsagePlan("UsagePlan", {
      description: "Per-organization rate limit. The key CLI adds each organization's usage key to this plan.",
      throttle: config.organizationThrottle,
      apiStages: [{ api: this.api, stage: this.api.deploymentStage }],
    });

    if (config.waf) this.webAcl = new ApiWebAcl(this, "Waf", { stageArn: this.api.deploymentStage.stageArn });

    const stack = Stack.of(this);
    this.baseUrl = Fn.join("", [
      "https://",
      this.api.restApiId,
      ".execute-api.",
      stack.region,
      ".",
      stack.urlSuffix,
      "/",
      this.api.deploymentStage.stageName,
    ]);

    const cloudWatchRole = this.api.node.findChild("CloudWatchRole");
    Validations.of(cloudWatchRole).acknowledge({
      id: "AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]",
      reason:
        "API Gateway's account-level logging role; AWS maintains this policy for exactly that purpose and the role " +
        "can be assumed only by API Gateway.",
    });

    Validations.of(this.api).acknowledge(
      {
        id: "AwsSolutions-APIG2",
        reason:
          "Each function validates its own path, query and body with zod and answers 400/422 in the service's error " +
          "envelope naming the field; API Gateway request validators would answer first, with a different shape.",
      },
      {
        id: "AwsSolutions-APIG3",
        reason:
          "WAF is opt-in (-c waf=true adds per-client rate-based rules on the stage): the API is authenticated on every " +
          "keyed route and rate-limited per organization, per stage and per public method without it.",
      },
      {
        id: "AwsSolutions-COG4",
        reason:
          "Clients are services that authenticate with organization API keys, verified by the custom TOKEN authorizer; " +
          "there are no end users for a Cognito user pool.",
      },
    );
  }
}
