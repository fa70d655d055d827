import { App, Validations } from "aws-cdk-lib";
import { AwsSolutionsChecks } from "cdk-nag";
import { configFromContext } from "../lib/config.ts";
import { ServiceStack } from "../lib/stacks/service-stack.ts";

/**
 * Composition root, run by Deno (see cdk.json): choose the stage, build the stack, and check it
 * against the AWS Solutions rules so that every unacknowledged finding fails the synth.
 */
const app = new App();
const config = configFromContext(app);

new ServiceStack(app, `KnowledgeIngestionService-${config.stage}`, {
  config,
  env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
  description: `knowledge-ingestion-service (${config.stage}): RAG ingestion API, workers and storage.`,
});

Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
