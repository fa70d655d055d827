import { App, RemovalPolicy } from "aws-cdk-lib";
import { describe, expect, it } from "vitest";
import { configFromContext, stageConfig, stageFromContext } from "../../lib/config.ts";

const appWith = (context: Record<string, unknown>) => new App({ context });

describe("stage configuration", () => {
  it("uses dev when no stage is given", () => {
    expect(stageFromContext(appWith({}))).toBe("dev");
  });

  it("accepts -c stage=prod", () => {
    expect(stageFromContext(appWith({ stage: "prod" }))).toBe("prod");
  });

  it("rejects an unknown stage, naming the valid ones", () => {
    expect(() => stageFromContext(appWith({ stage: "staging" }))).toThrow(/Unknown stage "staging".*<dev\|prod>/);
  });

  it("destroys dev resources with the stack and retains prod ones", () => {
    expect(stageConfig("dev").removalPolicy).toBe(RemovalPolicy.DESTROY);
    expect(stageConfig("prod").removalPolicy).toBe(RemovalPolicy.RETAIN);
    expect(stageConfig("prod").tableDeletionProtection).toBe(true);
  });

  it("defaults to Bedrock embeddings and one-hour presigned URLs", () => {
    expect(stageConfig("prod")).toMatchObject({
      defaultEmbeddingProvider: "BEDROCK",
      uploadUrlTtlSeconds: 3600,
      downloadUrlTtlSeconds: 3600,
    });
  });

  it("allows any CORS origin unless corsOrigins is given", () => {
    expect(configFromContext(appWith({})).corsOrigins).toEqual(["*"]);
  });

  it("reads corsOrigins as a comma-separated list or a JSON array", () => {
    expect(configFromContext(appWith({ corsOrigins: "https://a.example, https://b.example" })).corsOrigins).toEqual([
      "https://a.example",
      "https://b.example",
    ]);
    expect(configFromContext(appWith({ corsOrigins: ["https://c.example"] })).corsOrigins).toEqual(["https://c.example"]);
  });

  it("rejects a corsOrigins list with no origin in it", () => {
    expect(() => configFromContext(appWith({ corsOrigins: " , " }))).toThrow(/corsOrigins is empty/);
  });

  it("reads the chat model allow-list from -c chatModels, a comma-separated list or a JSON array; absent, the default set", () => {
    expect(configFromContext(appWith({})).chatModels).toBeNull();
    expect(configFromContext(appWith({ chatModels: "amazon.nova-lite-v1:0, us.anthropic.claude-3-haiku-20240307-v1:0" })).chatModels).toEqual([
      "amazon.nova-lite-v1:0",
      "us.anthropic.claude-3-haiku-20240307-v1:0",
    ]);
    expect(configFromContext(appWith({ chatModels: ["meta.llama3-70b-instruct-v1:0"] })).chatModels).toEqual(["meta.llama3-70b-instruct-v1:0"]);
    expect(() => configFromContext(appWith({ chatModels: " , " }))).toThrow(/chatModels is empty/);
    expect(() => configFromContext(appWith({ chatModels: "amazon.nova-lite-v1:0,not a model" }))).toThrow(/"not a model" is not a Bedrock model/);
  });
});
