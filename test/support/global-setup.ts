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
  const [dynamoDb, emulator] = await Promise.all([startDynamoDbLocal(), startEmulator({ region: "us-east-1" })]);
  project.provide("dynamoEndpoint", dynamoDb.endpoint);
  project.provide("emulatorEndpoint", emulator.endpoint);
  project.provide("iamGrants", synthesizedGrants());
  return async () => {
    await emulator.stop();
    await dynamoDb.stop();
  };
}
