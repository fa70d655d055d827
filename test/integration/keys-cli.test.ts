import { describe, expect, it } from "vitest";
import { run } from "../../scripts/keys.ts";
import { useLocalStack } from "../support/local-stack.ts";

// A one-second authorizer cache, so revocation can be seen taking effect when the cache expires.
// The gateway's clock runs with real time plus what a test moves it on by.
let clockOffsetMs = 0;
const api = useLocalStack({ authorizerCacheTtlSeconds: 1, gatewayClock: () => Date.now() + clockOffsetMs });

async function keysCli(...args: string[]): Promise<{ code: number; output: string }> {
  const lines: string[] = [];
  const code = await run([...args, "--table", api.stack().resources.tableName], (line) => lines.push(line));
  return { code, output: lines.join("\n") };
}

describe("the keys command-line tool", () => {
  it("creates an organization with a key that the gateway accepts", async () => {
    const created = await keysCli("create", "--org", "acme-cli");
    expect(created.code).toBe(0);
    const key = /API key \(shown once, store it now\): (\S+)/.exec(created.output)?.[1];
    expect(key).toMatch(/^kis_/);
    const response = await api.request("GET", "/v1/namespace", { key });
    expect(response.status).toBe(200);
  });

  it("reuses the organization for a second key and lists keys without revealing them", async () => {
    const first = await keysCli("create", "--org", "globex-cli", "--label", "ci");
    const second = await keysCli("create", "--org", "globex-cli", "--label", "laptop");
    expect(second.output).toContain("Using organization globex-cli");
    const organizationId = /\((org_[^)]+)\)/.exec(first.output)?.[1];
    expect(second.output).toContain(organizationId);
    const listed = await keysCli("list", "--org", "globex-cli");
    expect(listed.output).toContain("ci");
    expect(listed.output).toContain("laptop");
    for (const output of [first.output, second.output]) {
      const key = /API key \(shown once, store it now\): (\S+)/.exec(output)?.[1] ?? "";
      expect(listed.output).not.toContain(key);
    }
  });

  it("revokes a key so the gateway refuses it once the authorizer cache has expired", async () => {
    const created = await keysCli("create", "--org", "initech-cli");
    const key = /API key \(shown once, store it now\): (\S+)/.exec(created.output)?.[1];
    const keyId = /Key id: (key_\S+)/.exec(created.output)?.[1] ?? "";
    expect((await api.request("GET", "/v1/namespace", { key })).status).toBe(200);
    const revoked = await keysCli("revoke", keyId);
    expect(revoked.code).toBe(0);
    clockOffsetMs += 1100;
    expect((await api.request("GET", "/v1/namespace", { key })).status).toBe(401);
    expect((await keysCli("revoke", keyId)).code).toBe(1);
  });

  it("exits 2 with the usage for an unknown command", async () => {
    const result = await keysCli("frobnicate");
    expect(result.code).toBe(2);
    expect(result.output).toContain("Usage:");
  });
});
