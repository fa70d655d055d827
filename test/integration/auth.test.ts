import { describe, expect, it } from "vitest";
import { useLocalStack } from "../support/local-stack.ts";

const api = useLocalStack();

describe("authentication through the local gateway", () => {
  it("lists an empty organization's namespaces with a valid key", async () => {
    const { key } = await api.newOrganization();
    const response = await api.request("GET", "/v1/namespace", { key });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ success: true, data: [] });
  });

  it.each([
    ["no Authorization header", {}],
    ["a header without the Bearer scheme", { authorization: "Token abc" }],
    ["an empty bearer token", { authorization: "Bearer " }],
    ["a malformed token", { authorization: "Bearer not a key" }],
    ["an unknown key", { authorization: "Bearer kis_0000000000000000000000000000000" }],
  ])("answers 401 in the error envelope for %s", async (_case, headers) => {
    const response = await api.request("GET", "/v1/namespace", { headers });
    expect(response.status).toBe(401);
    expect(response.body).toEqual({
      success: false,
      error: { code: "unauthorized", message: expect.any(String) },
    });
  });

  it("answers 404 in the envelope for an unknown route, before authentication", async () => {
    const response = await api.request("GET", "/v1/does-not-exist");
    expect(response.status).toBe(404);
    expect(response.body.error.code).toBe("not_found");
  });

  it("answers /health without a key and outside the envelope", async () => {
    const response = await api.request("GET", "/health");
    expect(response.status).toBe(200);
    expect(response.body.status).toBe("healthy");
  });

  it("answers 413 in the envelope for a body over 10 MB", async () => {
    const { key } = await api.newOrganization();
    const response = await api.request("POST", "/v1/namespace", { key, rawBody: "x".repeat(10 * 1024 * 1024 + 1) });
    expect(response.status).toBe(413);
    expect(response.body.success).toBe(false);
  });
});
