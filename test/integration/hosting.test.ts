import { describe, expect, it } from "vitest";
import { useLocalStack } from "../support/local-stack.ts";

const api = useLocalStack();

async function namespaceWithKey() {
  const { key } = await api.newOrganization();
  const slug = `hosted-${Math.random().toString(36).slice(2, 8)}`;
  const response = await api.request("POST", "/v1/namespace", { key, body: { name: "Hosted docs", slug } });
  return { key, namespace: response.body.data, base: `/v1/namespace/${response.body.data.id}/hosting` };
}

describe("hosting configuration", () => {
  it("enables hosting with its defaults (201)", async () => {
    const { key, namespace, base } = await namespaceWithKey();
    const response = await api.request("POST", base, { key, body: {} });
    expect(response.status).toBe(201);
    expect(response.body.data).toEqual({
      namespaceId: namespace.id,
      title: "Hosted docs",
      slug: expect.stringMatching(new RegExp(`^${namespace.slug}-[a-z0-9]{10}$`)),
      logo: null,
      ogTitle: null,
      ogDescription: null,
      ogImage: null,
      systemPrompt: null,
      exampleQuestions: [],
      exampleSearchQueries: [],
      welcomeMessage: null,
      citationMetadataPath: null,
      searchEnabled: true,
      rerankConfig: { model: "cohere:rerank-v4.0-pro", limit: 15 },
      llmConfig: { model: "openai:gpt-5.5" },
      topK: 50,
      protected: true,
      allowedEmails: [],
      allowedEmailDomains: [],
      chatMode: "single-shot",
      mcpEnabled: false,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
  });

  it("answers 409 when hosting is already enabled", async () => {
    const { key, base } = await namespaceWithKey();
    await api.request("POST", base, { key, body: {} });
    const again = await api.request("POST", base, { key, body: {} });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe("conflict");
  });

  it("answers 404 for get, update and delete when hosting is not enabled", async () => {
    const { key, base } = await namespaceWithKey();
    for (const [method, body] of [["GET"], ["PATCH", { title: "x" }], ["DELETE"]] as const) {
      const response = await api.request(method, base, { key, body });
      expect(response.status).toBe(404);
      expect(response.body.error.code).toBe("not_found");
    }
  });

  it("updates fields, merges rerank settings and normalises emails", async () => {
    const { key, base } = await namespaceWithKey();
    await api.request("POST", base, { key, body: {} });
    const response = await api.request("PATCH", base, {
      key,
      body: {
        title: "Ask our docs",
        rerankLimit: 20,
        llmModel: "openai:gpt-5-mini",
        allowedEmails: [" Alice@Example.COM "],
        allowedEmailDomains: ["Example.org"],
        exampleQuestions: ["How do I start?"],
        systemPrompt: "",
        topK: 12,
        protected: false,
        logo: "https://cdn.example.com/logo.png",
      },
    });
    expect(response.status).toBe(200);
    expect(response.body.data).toMatchObject({
      title: "Ask our docs",
      rerankConfig: { model: "cohere:rerank-v4.0-pro", limit: 20 },
      llmConfig: { model: "openai:gpt-5-mini" },
      allowedEmails: ["alice@example.com"],
      allowedEmailDomains: ["example.org"],
      exampleQuestions: ["How do I start?"],
      systemPrompt: null,
      topK: 12,
      protected: false,
      logo: "https://cdn.example.com/logo.png",
    });
    const fetched = await api.request("GET", base, { key });
    expect(fetched.body.data).toEqual(response.body.data);
  });

  it.each([
    [{ topK: 0 }, "topK"],
    [{ exampleQuestions: ["a", "b", "c", "d", "e"] }, "exampleQuestions"],
    [{ allowedEmails: ["not-an-email"] }, "allowedEmails.0"],
    [{ logo: "http://insecure.example.com/x.png" }, "logo"],
    [{ slug: "x" }, "slug"],
    [{ llmModel: "gpt-2" }, "llmModel"],
    [{ ogTitle: "t".repeat(71) }, "ogTitle"],
  ])("answers 422 naming the field for %j", async (body, field) => {
    const { key, base } = await namespaceWithKey();
    await api.request("POST", base, { key, body: {} });
    const response = await api.request("PATCH", base, { key, body });
    expect(response.status).toBe(422);
    expect(response.body.error.message.startsWith(`${field}:`)).toBe(true);
  });

  it("keeps hosting slugs unique across organizations", async () => {
    const first = await namespaceWithKey();
    const second = await namespaceWithKey();
    await api.request("POST", first.base, { key: first.key, body: {} });
    await api.request("POST", second.base, { key: second.key, body: {} });
    const claimed = await api.request("PATCH", first.base, { key: first.key, body: { slug: "our-help-center" } });
    expect(claimed.status).toBe(200);
    const clash = await api.request("PATCH", second.base, { key: second.key, body: { slug: "our-help-center" } });
    expect(clash.status).toBe(409);
  });

  it("deletes hosting (deleteHosting), returning the configuration as it was, then 404", async () => {
    const { key, base } = await namespaceWithKey();
    const enabled = await api.request("POST", base, { key, body: {} });
    const deleted = await api.request("DELETE", base, { key });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ success: true, data: enabled.body.data });
    expect((await api.request("GET", base, { key })).status).toBe(404);
    const reenabled = await api.request("POST", base, { key, body: {} });
    expect(reenabled.status).toBe(201);
  });
});
