import { describe, expect, it } from "vitest";
import { useLocalStack } from "../support/local-stack.ts";

const limited = useLocalStack({ rateLimit: { ratePerSecond: 1, burst: 3 } });

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
