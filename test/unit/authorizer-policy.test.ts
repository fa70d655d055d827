import type { APIGatewayAuthorizerResult, PolicyDocument, Statement } from "aws-lambda";
import { describe, expect, it } from "vitest";
import { stageWildcard } from "../../functions/authorizer/token.ts";
import { AuthorizerCache } from "../../local/authorizer-cache.ts";
import { arnMatches, evaluatePolicy } from "../../local/authorizer-policy.ts";

const API_ARN = "arn:aws:execute-api:eu-west-1:123456789012:abc123defg";
const arn = (method: string, path: string, stage = "api") => `${API_ARN}/${stage}/${method}/${path}`;
const policy = (...statements: Statement[]): PolicyDocument => ({ Version: "2012-10-17", Statement: statements });
const allow = (resource: string | string[]): Statement => ({ Effect: "Allow", Action: "execute-api:Invoke", Resource: resource });
const deny = (resource: string | string[]): Statement => ({ Effect: "Deny", Action: "execute-api:Invoke", Resource: resource });

describe("the authorizer's stage wildcard", () => {
  it("turns a realistic method ARN into one resource covering every method and path of its stage", () => {
    expect(stageWildcard(arn("GET", "v1/namespace"))).toBe(`${API_ARN}/api/*`);
  });

  it("gives a policy that, cached from a GET, still allows every other method and path of the stage", () => {
    const cached = policy(allow(stageWildcard(arn("GET", "v1/namespace"))));
    for (const [method, path] of [
      ["GET", "v1/namespace"],
      ["POST", "v1/namespace"],
      ["DELETE", "v1/namespace/ns_abc"],
      ["PATCH", "v1/namespace/ns_abc/ingest-jobs/job_x"],
      ["POST", "v1/namespace/ns_abc/documents/doc_y/chunks-download-url"],
    ]) {
      expect(evaluatePolicy(cached, arn(method!, path!)), `${method} ${path}`).toBe("allow");
    }
    expect(evaluatePolicy(cached, arn("GET", "v1/namespace", "other-stage"))).toBe("deny");
    expect(evaluatePolicy(cached, "arn:aws:execute-api:eu-west-1:123456789012:otherapi/api/GET/v1/namespace")).toBe("deny");
  });
});

describe("policy evaluation", () => {
  it("denies a method the policy does not name", () => {
    const getOnly = policy(allow(arn("GET", "*")));
    expect(evaluatePolicy(getOnly, arn("GET", "v1/namespace"))).toBe("allow");
    expect(evaluatePolicy(getOnly, arn("POST", "v1/namespace"))).toBe("deny");
  });

  it("lets an explicit Deny win over any Allow", () => {
    const document = policy(allow(`${API_ARN}/api/*`), deny(arn("DELETE", "*")));
    expect(evaluatePolicy(document, arn("GET", "v1/namespace"))).toBe("allow");
    expect(evaluatePolicy(document, arn("DELETE", "v1/namespace/ns_abc"))).toBe("deny");
  });

  it("denies when no statement allows, including an empty policy", () => {
    expect(evaluatePolicy(policy(), arn("GET", "v1/namespace"))).toBe("deny");
    expect(evaluatePolicy(policy(deny("*")), arn("GET", "v1/namespace"))).toBe("deny");
  });

  it("ignores statements for other actions and honours NotAction and NotResource", () => {
    const otherAction: Statement = { Effect: "Allow", Action: "execute-api:ManageConnections", Resource: "*" };
    expect(evaluatePolicy(policy(otherAction), arn("GET", "v1/namespace"))).toBe("deny");
    expect(evaluatePolicy(policy({ Effect: "Allow", Action: "EXECUTE-API:*", Resource: "*" }), arn("GET", "x"))).toBe("allow");
    const everythingBut: Statement = { Effect: "Allow", Action: "*", NotResource: arn("DELETE", "*") };
    expect(evaluatePolicy(policy(everythingBut), arn("GET", "v1/namespace"))).toBe("allow");
    expect(evaluatePolicy(policy(everythingBut), arn("DELETE", "v1/namespace/ns_abc"))).toBe("deny");
    const notInvoke: Statement = { Effect: "Allow", NotAction: "execute-api:Invoke", Resource: "*" };
    expect(evaluatePolicy(policy(notInvoke), arn("GET", "v1/namespace"))).toBe("deny");
  });

  it("matches * and ? as IAM does: within a colon-separated part, and across / in the resource", () => {
    expect(arnMatches("arn:aws:execute-api:*:*:abc123defg/api/GET/v1/*", arn("GET", "v1/namespace/ns_abc/documents"))).toBe(true);
    expect(arnMatches("arn:aws:execute-api:eu-west-?:123456789012:abc123defg/api/*", arn("GET", "v1/namespace"))).toBe(true);
    expect(arnMatches("arn:aws:execute-api:eu-west-??:123456789012:abc123defg/api/*", arn("GET", "v1/namespace"))).toBe(false);
    expect(arnMatches("arn:aws:execute-api:*:abc123defg/api/*", arn("GET", "v1/namespace"))).toBe(false);
    expect(arnMatches("arn:aws:execute-api:eu-west-1:123456789012:abc123defg/api/get/*", arn("GET", "v1/namespace"))).toBe(false);
    expect(arnMatches("*", arn("GET", "v1/namespace"))).toBe(true);
  });
});

describe("the authorizer result cache", () => {
  const result = (principalId: string): APIGatewayAuthorizerResult => ({ principalId, policyDocument: policy(allow("*")) });

  it("reuses a token's result until the TTL passes, then asks the authorizer again", async () => {
    let clock = 0;
    let calls = 0;
    const cache = new AuthorizerCache(60);
    const authorize = async () => result(`call-${++calls}`);
    expect((await cache.resolve("Bearer a", authorize, () => clock)).principalId).toBe("call-1");
    clock = 59_999;
    expect((await cache.resolve("Bearer a", authorize, () => clock)).principalId).toBe("call-1");
    expect((await cache.resolve("Bearer b", authorize, () => clock)).principalId).toBe("call-2");
    clock = 60_000;
    expect((await cache.resolve("Bearer a", authorize, () => clock)).principalId).toBe("call-3");
  });

  it("caches nothing with a TTL of 0, and never caches a failure", async () => {
    let calls = 0;
    const uncached = new AuthorizerCache(0);
    await uncached.resolve("t", async () => result(String(++calls)));
    await uncached.resolve("t", async () => result(String(++calls)));
    expect(calls).toBe(2);

    const cache = new AuthorizerCache(60);
    await expect(cache.resolve("t", async () => Promise.reject(new Error("Unauthorized")))).rejects.toThrow("Unauthorized");
    expect((await cache.resolve("t", async () => result("after"))).principalId).toBe("after");
  });
});
