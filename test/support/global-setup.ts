import type { TestProject } from "vitest/node";
import { startDynamoDbLocal } from "../../local/dynamodb-local.ts";
import { startEmulator } from "../../local/emulator.ts";

declare module "vitest" {
  export interface ProvidedContext {
    dynamoEndpoint: string;
    emulatorEndpoint: string;
  }
}

export default async function setup(project: TestProject) {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = "true";
  const [dynamoDb, emulator] = await Promise.all([startDynamoDbLocal(), startEmulator({ region: "us-east-1" })]);
  project.provide("dynamoEndpoint", dynamoDb.endpoint);
  project.provide("emulatorEndpoint", emulator.endpoint);
  return async () => {
    await emulator.stop();
    await dynamoDb.stop();
  };
}
