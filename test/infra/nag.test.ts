import { afterEach, describe, expect, it } from "vitest";
import { Stack, Validations } from "aws-cdk-lib";
import { PolicyStatement, Role, ServicePrincipal } from "aws-cdk-lib/aws-iam";
import { CfnVectorBucket } from "aws-cdk-lib/aws-s3vectors";
import { Queue, QueueEncryption } from "aws-cdk-lib/aws-sqs";
import { AwsSolutionsChecks } from "cdk-nag";
import { stageConfig } from "../../lib/config.ts";
import { AppFunction } from "../../lib/constructs/app-function.ts";
import { FileBucket } from "../../lib/constructs/file-bucket.ts";
import { SingleTable } from "../../lib/constructs/single-table.ts";
import type { FunctionAccess } from "../../lib/routes.ts";
import { buildApp, buildStack, nagFindings, removeOutdir } from "./stack-fixture.ts";

const outdirs: string[] = [];
afterEach(() => {
  for (const outdir of outdirs.splice(0)) removeOutdir(outdir);
});

/** Synthesizes with cdk-nag; returns the unacknowledged findings (empty when the synth passes). */
function findingsOf(synth: () => unknown): { findings: string[]; report: string } {
  try {
    synth();
    return { findings: [], report: "" };
  } catch (error) {
    const report = error instanceof Error ? error.message : String(error);
    return { findings: nagFindings(report), report };
  }
}

describe("cdk-nag AwsSolutions checks", () => {
  it.each(["dev", "prod"] as const)("pass on the %s stack with every finding acknowledged", (stage) => {
    const { app, outdir } = buildStack(stage, { nag: true });
    outdirs.push(outdir);
    const { findings, report } = findingsOf(() => app.synth());
    expect(findings, report).toEqual([]);
    expect(report).toBe("");
  });

  it("pass on a stack with the opt-in WAF web ACL", () => {
    const { app, outdir } = buildStack("prod", { nag: true, waf: true });
    outdirs.push(outdir);
    const { findings, report } = findingsOf(() => app.synth());
    expect(findings, report).toEqual([]);
  });

  it("fail a synth on an unacknowledged wildcard, so the check is live", () => {
    const { app, outdir } = buildApp();
    outdirs.push(outdir);
    const stack = new Stack(app, "Probe");
    new Role(stack, "Role", { assumedBy: new ServicePrincipal("lambda.amazonaws.com") }).addToPolicy(
      new PolicyStatement({ actions: ["s3:*"], resources: ["*"] }),
    );
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
    const { findings } = findingsOf(() => app.synth());
    expect(findings).toEqual(expect.arrayContaining(["AwsSolutions-IAM5[Action::s3:*]", "AwsSolutions-IAM5[Resource::*]"]));
  });

  it("pass for every access level a function can declare, including levels no function uses yet", () => {
    const { app, outdir } = buildApp();
    outdirs.push(outdir);
    const config = stageConfig("dev");
    const stack = new Stack(app, "AccessLevels");
    const queue = (id: string) => new Queue(stack, id, { encryption: QueueEncryption.SQS_MANAGED, enforceSSL: true });
    const ingestDlq = queue("IngestDlq");
    const deleteDlq = queue("DeleteDlq");
    const mailDlq = queue("MailDlq");
    const resources = {
      table: new SingleTable(stack, "Data", { config }).table,
      bucket: new FileBucket(stack, "Files", { config }).bucket,
      vectorBucket: new CfnVectorBucket(stack, "Vectors"),
      queues: {
        ingest: new Queue(stack, "Ingest", {
          encryption: QueueEncryption.SQS_MANAGED,
          enforceSSL: true,
          deadLetterQueue: { queue: ingestDlq, maxReceiveCount: 3 },
        }),
        delete: new Queue(stack, "Delete", {
          encryption: QueueEncryption.SQS_MANAGED,
          enforceSSL: true,
          deadLetterQueue: { queue: deleteDlq, maxReceiveCount: 3 },
        }),
        mail: new Queue(stack, "Mail", {
          encryption: QueueEncryption.SQS_MANAGED,
          enforceSSL: true,
          deadLetterQueue: { queue: mailDlq, maxReceiveCount: 3 },
        }),
      },
    };
    const levels: FunctionAccess[] = [
      { table: "read" },
      { table: "readWrite", queues: ["ingest", "delete", "mail"] },
      { table: "read", bucket: "read" },
      { table: "read", bucket: "put" },
      { table: "readWrite", bucket: "readWrite" },
      { table: "read", vectors: ["query"], embeds: true },
      { table: "readWrite", tableScan: true, vectors: ["write", "delete", "list", "count"], embeds: true },
    ];
    levels.forEach((access, index) => {
      new AppFunction(stack, `Level${index}`, { entry: "functions/http/namespaces/get.ts", config }).grantAccess(
        access,
        resources,
      );
    });
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
    const { findings, report } = findingsOf(() => app.synth());
    expect(findings, report).toEqual([]);
  });
});
