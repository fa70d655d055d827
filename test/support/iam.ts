import type { CfnElement } from "aws-cdk-lib";
import type { IConstruct } from "constructs";
import type { SdkCall } from "../../functions/shared/platform/sdk-observer.ts";
import type { QueueName } from "../../functions/shared/queue/names.ts";
import { AUTHORIZER, HTTP_FUNCTIONS } from "../../lib/routes.ts";
import type { ServiceStack } from "../../lib/stacks/service-stack.ts";
import { SCHEDULED_FUNCTIONS, WORKERS } from "../../lib/workers.ts";
import { removeOutdir, templateOf } from "../infra/stack-fixture.ts";

/**
 * The deployability check: every AWS call a function's code sends (or presigns) while the
 * integration suite runs must be allowed by that function's synthesized IAM policy, on the resource
 * it names. Resources are compared symbolically: `table`, `table/index/*`, `bucket`, `bucket/*`,
 * `queue:ingest`; the local stack's names map onto the same symbols.
 */

/** One Allow statement of a function's policies, its resources as symbols. */
export interface Grant {
  actions: string[];
  resources: string[];
  /** `dynamodb:LeadingKeys` patterns the statement is conditioned on: the partition keys it allows. */
  leadingKeys?: string[];
}

export type GrantsByFunction = Record<string, Grant[]>;

/** A permission a call needs: an IAM action on a resource symbol (`bucket/<key>` for an object). */
export interface Need {
  action: string;
  resource: string;
  /** The partition key of the item a DynamoDB item operation touches. */
  leadingKey?: string;
}

/** The local names behind the symbols. */
export interface LocalNames {
  tableName: string;
  bucketName: string;
  queueUrls: Record<QueueName, string>;
}

const logicalId = (stack: ServiceStack, construct: IConstruct) => stack.getLogicalId(construct.node.defaultChild as CfnElement);

/** Synthesizes the dev stack and reads every function's Allow statements. */
export function synthesizedGrants(): GrantsByFunction {
  const { template, stack, outdir } = templateOf("dev");
  try {
    const { table, bucket, queues } = stack.work.resources;
    const symbols: [string, string][] = [
      [logicalId(stack, table), "table"],
      [logicalId(stack, bucket), "bucket"],
      ...Object.entries(queues).map(([name, queue]) => [logicalId(stack, queue), `queue:${name}`] as [string, string]),
    ];
    const symbolOf = (resource: unknown): string => {
      const text = JSON.stringify(resource);
      for (const [id, symbol] of symbols) {
        if (!text.includes(`"${id}"`)) continue;
        if (symbol === "table") return text.includes("/index/*") ? "table/index/*" : "table";
        if (symbol === "bucket") return text.includes("/*") ? "bucket/*" : "bucket";
        return symbol;
      }
      const model = /(foundation-model|inference-profile)\/([^"]+)"/.exec(text);
      if (model) return `${model[1]}/${model[2]}`;
      return typeof resource === "string" ? resource : text;
    };
    const functions = [
      ...HTTP_FUNCTIONS.map((definition) => [definition.id, stack.functions.get(definition.id)!] as const),
      [AUTHORIZER.id, stack.authorizer] as const,
      ...WORKERS.map((definition) => [definition.id, stack.work.workers.get(definition.id)!] as const),
      ...SCHEDULED_FUNCTIONS.map((definition) => [definition.id, stack.scheduled.get(definition.id)!] as const),
    ];
    const policies = Object.values(template.findResources("AWS::IAM::Policy"));
    const grants: GrantsByFunction = {};
    for (const [id, appFunction] of functions) {
      const roleRef = JSON.stringify({ Ref: logicalId(stack, appFunction.fn.role!) });
      grants[id] = policies
        .filter((policy) => JSON.stringify(policy.Properties.Roles).includes(roleRef))
        .flatMap((policy) => policy.Properties.PolicyDocument.Statement as { Effect: string; Action: string | string[]; Resource: unknown; Condition?: Record<string, Record<string, unknown>> }[])
        .filter((statement) => statement.Effect === "Allow")
        .map((statement) => {
          const conditions = Object.entries(statement.Condition ?? {});
          const unknown = conditions.filter(([operator, keys]) => operator !== "ForAllValues:StringLike" || Object.keys(keys).some((key) => key !== "dynamodb:LeadingKeys"));
          // Only grant conditions this check understands; any other would make it allow too much.
          const grant: Grant = { actions: [statement.Action].flat(), resources: [statement.Resource].flat().map(symbolOf) };
          if (unknown.length > 0 && ![statement.Action].flat().every((action) => action.startsWith("aws-marketplace:"))) throw new Error(`${id}: a grant condition the IAM check cannot evaluate: ${JSON.stringify(statement.Condition)}`);
          const leadingKeys = statement.Condition?.["ForAllValues:StringLike"]?.["dynamodb:LeadingKeys"];
          if (leadingKeys !== undefined) grant.leadingKeys = [leadingKeys].flat().map(String);
          return grant;
        });
    }
    return grants;
  } finally {
    removeOutdir(outdir);
  }
}

/** The permissions one SDK call needs, in IAM's terms. */
export function needsOf(call: SdkCall, names: LocalNames): Need[] {
  const input = call.input as Record<string, any>;
  const table = (name: unknown, index?: unknown) => (name === names.tableName ? (index ? `table/index/${index}` : "table") : `table:${String(name)}`);
  const object = (bucket: unknown, key: unknown) => (bucket === names.bucketName ? `bucket/${String(key)}` : `bucket:${String(bucket)}/${String(key)}`);
  const queue = (url: unknown) => {
    const name = (Object.entries(names.queueUrls) as [QueueName, string][]).find(([, queueUrl]) => queueUrl === url)?.[0];
    return name ? `queue:${name}` : `queue-url:${String(url)}`;
  };
  switch (call.client) {
    case "DynamoDBClient": {
      // A transaction is authorised item by item, as the operations it contains.
      if (call.command === "TransactWriteItems") {
        return (input.TransactItems as Record<string, { TableName: string; Item?: Record<string, unknown>; Key?: Record<string, unknown> }>[]).flatMap((item) =>
          Object.entries(item).map(([kind, operation]) => ({
            action: `dynamodb:${{ Put: "PutItem", Update: "UpdateItem", Delete: "DeleteItem", ConditionCheck: "ConditionCheckItem" }[kind] ?? kind}`,
            resource: table(operation.TableName),
            leadingKey: partitionKey(operation.Item ?? operation.Key),
          })),
        );
      }
      if (call.command === "TransactGetItems") {
        return (input.TransactItems as { Get: { TableName: string } }[]).map((item) => ({ action: "dynamodb:GetItem", resource: table(item.Get.TableName) }));
      }
      if (call.command === "BatchGetItem" || call.command === "BatchWriteItem") {
        return Object.keys(input.RequestItems as object).map((name) => ({ action: `dynamodb:${call.command}`, resource: table(name) }));
      }
      const leadingKey = partitionKey(input.Item ?? input.Key);
      return [{ action: `dynamodb:${call.command}`, resource: table(input.TableName, input.IndexName), ...(leadingKey === undefined ? {} : { leadingKey }) }];
    }
    case "S3Client": {
      if (call.command === "ListObjectsV2") return [{ action: "s3:ListBucket", resource: input.Bucket === names.bucketName ? "bucket" : `bucket:${input.Bucket}` }];
      if (call.command === "DeleteObjects") {
        return (input.Delete.Objects as { Key: string }[]).map((entry) => ({ action: "s3:DeleteObject", resource: object(input.Bucket, entry.Key) }));
      }
      // HEAD needs the read permission; every other object command is its own action.
      return [{ action: `s3:${call.command === "HeadObject" ? "GetObject" : call.command}`, resource: object(input.Bucket, input.Key) }];
    }
    case "SQSClient":
      return [{ action: `sqs:${call.command === "SendMessageBatch" ? "SendMessage" : call.command}`, resource: queue(input.QueueUrl) }];
    // Foundation models are checked by model id; vector-bucket ARNs are built from tokens in the template, so only the action is.
    // Converse and ConverseStream are authorised as the InvokeModel actions; an inference profile id
    // (a geography prefix such as `us.`) names a profile, which then runs its foundation model.
    case "BedrockRuntimeClient": {
      const action = { Converse: "InvokeModel", ConverseStream: "InvokeModelWithResponseStream" }[call.command as string] ?? call.command;
      const modelId = String(input.modelId);
      const profile = /^(?:us|eu|apac|us-gov|jp|au|ca|global)\.(.+)$/.exec(modelId);
      if (!profile) return [{ action: `bedrock:${action}`, resource: `foundation-model/${modelId}` }];
      return [
        { action: `bedrock:${action}`, resource: `inference-profile/${modelId}` },
        { action: `bedrock:${action}`, resource: `foundation-model/${profile[1]}` },
      ];
    }
    // Rerank is authorised twice: the action itself, and InvokeModel on the model it runs.
    case "BedrockAgentRuntimeClient": {
      const modelArn = String((input.rerankingConfiguration as { bedrockRerankingConfiguration: { modelConfiguration: { modelArn: string } } }).bedrockRerankingConfiguration.modelConfiguration.modelArn);
      return [
        { action: `bedrock:${call.command}`, resource: "*" },
        { action: "bedrock:InvokeModel", resource: `foundation-model/${modelArn.split("/").pop()}` },
      ];
    }
    case "S3VectorsClient":
      return [{ action: `s3vectors:${call.command}`, resource: "*" }];
    default:
      return [{ action: `${call.client}:${call.command}`, resource: "*" }];
  }
}

/** The PK of an item or key, plain or marshalled (`{ S: … }`), as the observer may see either. */
function partitionKey(item: Record<string, unknown> | undefined): string | undefined {
  const value = item?.PK;
  if (typeof value === "string") return value;
  if (typeof value === "object" && value !== null && typeof (value as { S?: unknown }).S === "string") return (value as { S: string }).S;
  return undefined;
}

function matches(pattern: string, value: string): boolean {
  const expression = new RegExp(`^${pattern.split("*").map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&")).join(".*")}$`);
  return expression.test(value);
}

/**
 * True when one of the grants allows the action on the resource (IAM wildcards in both). A need on
 * `*` asks for the action alone: the resource is an ARN the stack builds from tokens (the vector
 * bucket), which the symbols above do not name.
 */
export function isGranted(grants: Grant[], need: Need): boolean {
  return grants.some(
    (grant) =>
      grant.actions.some((action) => matches(action.toLowerCase(), need.action.toLowerCase())) &&
      (need.resource === "*" || grant.resources.some((resource) => matches(resource, need.resource))) &&
      // A LeadingKeys condition allows only items whose partition key it names (an unknown key: none).
      (grant.leadingKeys === undefined || (need.leadingKey !== undefined && grant.leadingKeys.some((pattern) => matches(pattern, need.leadingKey!)))),
  );
}
