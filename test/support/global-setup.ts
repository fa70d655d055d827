import type { TestProject } from "vitest/node";
import { startFauxqs } from "fauxqs";
import { startDynamoDbLocal } from "../../local/dynamodb-local.ts";

declare module "vitest" {
  export interface ProvidedContext {
    dynamoEndpoint: string;
    emulatorEndpoint: string;
  }
}

export default async function setup(project: TestProject) {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = "true";
  const [dynamoDb, emulator] = await Promise.all([
    startDynamoDbLocal(),
    startFauxqs({ port: 0, logger: false, host: "localhost", defaultRegion: "us-east-1" }),
  ]);
  project.provide("dynamoEndpoint", dynamoDb.endpoint);
  project.provide("emulatorEndpoint", `http://127.0.0.1:${emulator.port}`);
  return async () => {
    await emulator.stop();
    await dynamoDb.stop();
  };
}
