import type { TestProject } from "vitest/node";
import { startDynamoDbLocal } from "../../local/dynamodb-local.ts";
import { startEmulator } from "../../local/emulator.ts";
import { type GrantsByFunction, synthesizedGrants } from "./iam.ts";

declare module "vitest" {
  export interface ProvidedContext {
    dynamoEndpoint: string;
    emulatorEndpoint: string;
    /** Every function's Allow statements in the synthesized dev stack (the deployability check). */
    iamGrants: GrantsByFunction;
  }
}

export default async function setup(project: TestProject) {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = "true";
  // The grants are read from the template; CDK's CloudFormation validation (~40 s of this set-up)
  // is asserted by the CLI synth test, not here. `test.env` does not reach the global set-up.
  process.env.CDK_VALIDATION = "false";
  // DynamoDB Local's JVM boots in its own process while this one synthesizes the stack.
  const started = Promise.all([startDynamoDbLocal(), startEmulator({ region: "us-east-1" })]);
  const grants = synthesizedGrants();
  const [dynamoDb, emulator] = await started;
  project.provide("dynamoEndpoint", dynamoDb.endpoint);
  project.provide("emulatorEndpoint", emulator.endpoint);
  project.provide("iamGrants", grants);
  return async () => {
    await emulator.stop();
    await dynamoDb.stop();
  };
}
