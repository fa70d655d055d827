import { describe, expect, it } from "vitest";
import { useLocalStack } from "../support/local-stack.ts";

const limited = useLocalStack({ rateLimit: { ratePerSecond: 1, burst: 3 }, publicMethodThrottles: { ApiReference: { rateLimit: 1, burstLimit: 2 } } });

describe("rate limiting per organization", () => {
  it("answers 429 with Retry-After once an organization exceeds its burst, without affecting another", async () => {
    const first = await limited.newOrganization();
    const second = await limited.newOrganization();
    const statuses: number[] = [];
    let retryAfter: string | null = null;
    for (let attempt = 0; attempt < 5; attempt += 1) {
      const response = await limited.request("GET", "/v1/namespace", { key: first.key });
      statuses.push(response.status);
      if (response.status === 429) {
        retryAfter = response.headers.get("retry-after");
        expect(response.body.error.code).toBe("rate_limit_exceeded");
      }
    }
    expect(statuses.slice(0, 3)).toEqual([200, 200, 200]);
    expect(statuses).toContain(429);
    expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
    expect((await limited.request("GET", "/v1/namespace", { key: second.key })).status).toBe(200);
  });
});

describe("throttling of public methods", () => {
  it("answers 429 at the gateway once a public method's own bucket is empty, for every caller, leaving other methods alone", async () => {
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 4; attempt += 1) {
      const response = await limited.request("GET", "/docs", { key: null });
      statuses.push(response.status);
      if (response.status === 429) {
        expect(response.body.error.code).toBe("rate_limit_exceeded");
        expect(Number(response.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      }
    }
    expect(statuses.slice(0, 2)).toEqual([200, 200]);
    expect(statuses).toContain(429);
    // Another public method, and the keyed API, have buckets of their own.
    expect((await limited.request("GET", "/openapi.json", { key: null })).status).toBe(200);
    const organization = await limited.newOrganization();
    expect((await limited.request("GET", "/v1/namespace", { key: organization.key })).status).toBe(200);
  });
});
