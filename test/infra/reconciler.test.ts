import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CfnElement } from "aws-cdk-lib";
import type { Template } from "aws-cdk-lib/assertions";
import type { IConstruct } from "constructs";
import { ENV } from "../../functions/shared/platform/env-names.ts";
import type { ServiceStack } from "../../lib/stacks/service-stack.ts";
import { SCHEDULED_FUNCTIONS } from "../../lib/workers.ts";
import { removeOutdir, templateOf } from "./stack-fixture.ts";

let template: Template;
let stack: ServiceStack;
let outdir: string;

beforeAll(() => {
  ({ template, stack, outdir } = templateOf("dev"));
});

afterAll(() => removeOutdir(outdir));

function logicalId(construct: IConstruct): string {
  return stack.getLogicalId(construct.node.defaultChild as CfnElement);
}

const reconciler = () => {
  const definition = SCHEDULED_FUNCTIONS.find((candidate) => candidate.id === "Reconciler");
  if (!definition) throw new Error("no Reconciler in SCHEDULED_FUNCTIONS");
  return { definition, fn: stack.scheduled.get(definition.id)! };
};

describe("the scheduled reconciler", () => {
  it("is declared as a scheduled function running functions/workers/reconcile.ts", () => {
    expect(reconciler().definition).toMatchObject({ entry: "functions/workers/reconcile.ts", timeoutSeconds: 900 });
  });

  it("runs on an EventBridge rate schedule that targets its function", () => {
    const { definition, fn } = reconciler();
    const rules = Object.values(template.findResources("AWS::Events::Rule")).filter((rule) =>
      JSON.stringify(rule.Properties.Targets).includes(JSON.stringify({ "Fn::GetAtt": [logicalId(fn.fn), "Arn"] })),
    );
    expect(rules).toHaveLength(1);
    expect(rules[0]!.Properties).toMatchObject({
      ScheduleExpression: definition.rateMinutes === 60 ? "rate(1 hour)" : `rate(${definition.rateMinutes} minutes)`,
      State: "ENABLED",
    });
    template.hasResourceProperties("AWS::Lambda::Permission", {
      Action: "lambda:InvokeFunction",
      Principal: "events.amazonaws.com",
      FunctionName: { "Fn::GetAtt": [logicalId(fn.fn), "Arn"] },
    });
  });

  it("has the timeout and memory of its entry and no asynchronous retries", () => {
    const { definition, fn } = reconciler();
    template.hasResourceProperties("AWS::Lambda::Function", {
      Timeout: definition.timeoutSeconds,
      MemorySize: definition.memoryMb,
      Role: { "Fn::GetAtt": [logicalId(fn.fn.role!), "Arn"] },
    });
    template.hasResourceProperties("AWS::Lambda::EventInvokeConfig", {
      FunctionName: { Ref: logicalId(fn.fn) },
      MaximumRetryAttempts: 0,
    });
  });

  it("can reach the table, the bucket, both work queues and the vector bucket", () => {
    const { fn } = reconciler();
    const environment = template.toJSON().Resources[logicalId(fn.fn)].Properties.Environment.Variables as Record<string, unknown>;
    for (const name of [ENV.tableName, ENV.bucketName, ENV.ingestQueueUrl, ENV.deleteQueueUrl, ENV.vectorBucketName]) {
      expect(environment, name).toHaveProperty(name);
    }
    expect(environment[ENV.vectorStoreBackend]).toBe("s3vectors");
    const roleRef = JSON.stringify({ Ref: logicalId(fn.fn.role!) });
    const actions = Object.values(template.findResources("AWS::IAM::Policy"))
      .filter((policy) => JSON.stringify(policy.Properties.Roles).includes(roleRef))
      .flatMap((policy) => policy.Properties.PolicyDocument.Statement as { Action: string | string[] }[])
      .flatMap((statement) => [statement.Action].flat());
    for (const action of ["dynamodb:Scan", "dynamodb:UpdateItem", "s3:List*", "s3:DeleteObject*", "sqs:SendMessage", "s3vectors:ListVectors", "s3vectors:DeleteVectors"]) {
      expect(actions, action).toContain(action);
    }
  });
});
