import { describe, expect, it } from "vitest";
import { useLocalStack } from "../support/local-stack.ts";

const api = useLocalStack();

async function createNamespace(key: string, body: Record<string, unknown> = {}) {
  const slug = `ns-${Math.random().toString(36).slice(2, 10)}`;
  const response = await api.request("POST", "/v1/namespace", { key, body: { name: "Knowledge", slug, ...body } });
  expect(response.status).toBe(201);
  return response.body.data;
}

describe("namespaces", () => {
  it("creates a namespace with every field present and the local embedding default", async () => {
    const { key, organizationId } = await api.newOrganization();
    const response = await api.request("POST", "/v1/namespace", { key, body: { name: "Support docs", slug: "support-docs" } });
    expect(response.status).toBe(201);
    expect(response.body.success).toBe(true);
    expect(response.body.data).toEqual({
      id: expect.stringMatching(/^ns_[A-Za-z0-9_-]{22}$/),
      name: "Support docs",
      slug: "support-docs",
      organizationId,
      createdAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      status: "ACTIVE",
      embeddingConfig: { provider: "LOCAL", model: "local-hash-384" },
      vectorStoreConfig: { provider: "MANAGED_VECTORSTORE" },
    });
  });

  it("lists only the caller's namespaces, oldest first", async () => {
    const mine = await api.newOrganization();
    const theirs = await api.newOrganization();
    const first = await createNamespace(mine.key);
    const second = await createNamespace(mine.key);
    await createNamespace(theirs.key);
    const response = await api.request("GET", "/v1/namespace", { key: mine.key });
    expect(response.status).toBe(200);
    expect(response.body.data.map((namespace: { id: string }) => namespace.id)).toEqual([first.id, second.id]);
  });

  it("gets a namespace by id", async () => {
    const { key } = await api.newOrganization();
    const created = await createNamespace(key);
    const response = await api.request("GET", `/v1/namespace/${created.id}`, { key });
    expect(response.status).toBe(200);
    expect(response.body.data).toEqual(created);
  });

  it("masks provider API keys and never echoes them", async () => {
    const { key } = await api.newOrganization();
    const secret = "sk-live-0123456789abcdefWXYZ";
    const created = await createNamespace(key, { embeddingConfig: { provider: "OPENAI", model: "text-embedding-3-large", apiKey: secret } });
    expect(created.embeddingConfig).toEqual({ provider: "OPENAI", model: "text-embedding-3-large", apiKey: "sk-...WXYZ" });
    const fetched = await api.request("GET", `/v1/namespace/${created.id}`, { key });
    expect(JSON.stringify(fetched.body)).not.toContain(secret);
    const listed = await api.request("GET", "/v1/namespace", { key });
    expect(JSON.stringify(listed.body)).not.toContain(secret);
  });

  it("answers 409 for a slug already used in the organization, and allows it in another", async () => {
    const mine = await api.newOrganization();
    const theirs = await api.newOrganization();
    await api.request("POST", "/v1/namespace", { key: mine.key, body: { name: "A", slug: "shared-slug" } });
    const duplicate = await api.request("POST", "/v1/namespace", { key: mine.key, body: { name: "B", slug: "shared-slug" } });
    expect(duplicate.status).toBe(409);
    expect(duplicate.body.error.code).toBe("conflict");
    const elsewhere = await api.request("POST", "/v1/namespace", { key: theirs.key, body: { name: "B", slug: "shared-slug" } });
    expect(elsewhere.status).toBe(201);
  });

  it.each([
    [{ slug: "ok-slug" }, "name"],
    [{ name: "", slug: "ok-slug" }, "name"],
    [{ name: "x".repeat(65), slug: "ok-slug" }, "name"],
    [{ name: "Name" }, "slug"],
    [{ name: "Name", slug: "Upper" }, "slug"],
    [{ name: "Name", slug: "a".repeat(65) }, "slug"],
    [{ name: "Name", slug: "ok", embeddingConfig: { provider: "OPENAI" } }, "embeddingConfig.apiKey"],
    [{ name: "Name", slug: "ok", embeddingConfig: { provider: "NOPE" } }, "embeddingConfig.provider"],
    [{ name: "Name", slug: "ok", embeddingConfig: { provider: "LOCAL", model: "gpt" } }, "embeddingConfig.model"],
    [{ name: "Name", slug: "ok", vectorStoreConfig: { provider: "MANAGED_VECTORSTORE_OLD" } }, "vectorStoreConfig.provider"],
  ])("answers 422 naming the field for %j", async (body, field) => {
    const { key } = await api.newOrganization();
    const response = await api.request("POST", "/v1/namespace", { key, body });
    expect(response.status).toBe(422);
    expect(response.body.error.code).toBe("unprocessable_entity");
    expect(response.body.error.message.startsWith(`${field}:`)).toBe(true);
  });

  it("answers 400 for a body that is not JSON", async () => {
    const { key } = await api.newOrganization();
    const response = await api.request("POST", "/v1/namespace", { key, rawBody: "{not json" });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ success: false, error: { code: "bad_request", message: expect.any(String) } });
  });

  it("answers 404 for a well-formed id that does not exist and 400 for a malformed one", async () => {
    const { key } = await api.newOrganization();
    const missing = await api.request("GET", "/v1/namespace/ns_0000000000000000000000", { key });
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe("not_found");
    const malformed = await api.request("GET", "/v1/namespace/job_123", { key });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.code).toBe("bad_request");
  });

  it("answers 403 when another organization's key addresses the namespace, for every operation", async () => {
    const owner = await api.newOrganization();
    const stranger = await api.newOrganization();
    const namespace = await createNamespace(owner.key);
    const attempts = [
      api.request("GET", `/v1/namespace/${namespace.id}`, { key: stranger.key }),
      api.request("PATCH", `/v1/namespace/${namespace.id}`, { key: stranger.key, body: { name: "mine now" } }),
      api.request("DELETE", `/v1/namespace/${namespace.id}`, { key: stranger.key }),
      api.request("POST", `/v1/namespace/${namespace.id}/hosting`, { key: stranger.key, body: {} }),
      api.request("GET", `/v1/namespace/${namespace.id}/hosting`, { key: stranger.key }),
    ];
    for (const response of await Promise.all(attempts)) {
      expect(response.status).toBe(403);
      expect(response.body.error.code).toBe("forbidden");
    }
    const unchanged = await api.request("GET", `/v1/namespace/${namespace.id}`, { key: owner.key });
    expect(unchanged.body.data.name).toBe(namespace.name);
  });
});

describe("updating a namespace (updateNamespace)", () => {
  it("returns the namespace unchanged for an empty body", async () => {
    const { key } = await api.newOrganization();
    const namespace = await createNamespace(key);
    const response = await api.request("PATCH", `/v1/namespace/${namespace.id}`, { key, body: {} });
    expect(response.status).toBe(200);
    expect(response.body.data).toEqual(namespace);
  });

  it("renames and re-slugs, freeing the old slug", async () => {
    const { key } = await api.newOrganization();
    const namespace = await createNamespace(key, { slug: "old-slug" });
    const response = await api.request("PATCH", `/v1/namespace/${namespace.id}`, { key, body: { name: "Renamed", slug: "new-slug" } });
    expect(response.status).toBe(200);
    expect(response.body.data).toMatchObject({ id: namespace.id, name: "Renamed", slug: "new-slug" });
    const reuse = await api.request("POST", "/v1/namespace", { key, body: { name: "Other", slug: "old-slug" } });
    expect(reuse.status).toBe(201);
    const taken = await api.request("POST", "/v1/namespace", { key, body: { name: "Other", slug: "new-slug" } });
    expect(taken.status).toBe(409);
  });

  it("accepts PUT as an alias of PATCH", async () => {
    const { key } = await api.newOrganization();
    const namespace = await createNamespace(key);
    const response = await api.request("PUT", `/v1/namespace/${namespace.id}`, { key, body: { name: "Via PUT" } });
    expect(response.status).toBe(200);
    expect(response.body.data.name).toBe("Via PUT");
  });

  it("answers 409 when the new slug belongs to another namespace of the organization", async () => {
    const { key } = await api.newOrganization();
    const first = await createNamespace(key);
    const second = await createNamespace(key);
    const response = await api.request("PATCH", `/v1/namespace/${second.id}`, { key, body: { slug: first.slug } });
    expect(response.status).toBe(409);
    const still = await api.request("GET", `/v1/namespace/${second.id}`, { key });
    expect(still.body.data.slug).toBe(second.slug);
  });

  it("answers 422 naming the field for an invalid slug", async () => {
    const { key } = await api.newOrganization();
    const namespace = await createNamespace(key);
    const response = await api.request("PATCH", `/v1/namespace/${namespace.id}`, { key, body: { slug: "has space" } });
    expect(response.status).toBe(422);
    expect(response.body.error.message).toMatch(/^slug:/);
  });
});

describe("deleting a namespace", () => {
  it("returns it as DELETING, refuses a second delete, and removes it once the cascade ran", async () => {
    const { key } = await api.newOrganization();
    const namespace = await createNamespace(key);
    await api.request("POST", `/v1/namespace/${namespace.id}/hosting`, { key, body: {} });
    const response = await api.request("DELETE", `/v1/namespace/${namespace.id}`, { key });
    expect(response.status).toBe(200);
    expect(response.body.data).toMatchObject({ id: namespace.id, status: "DELETING" });
    const again = await api.request("DELETE", `/v1/namespace/${namespace.id}`, { key });
    expect([409, 404]).toContain(again.status);
    await expect.poll(async () => (await api.request("GET", `/v1/namespace/${namespace.id}`, { key })).status, { timeout: 15_000 }).toBe(404);
    const listed = await api.request("GET", "/v1/namespace", { key });
    expect(listed.body.data).toEqual([]);
    const slugFree = await api.request("POST", "/v1/namespace", { key, body: { name: "again", slug: namespace.slug } });
    expect(slugFree.status).toBe(201);
  });

  it("refuses updates while the namespace is being deleted", async () => {
    const { key } = await api.newOrganization();
    const namespace = await createNamespace(key);
    await api.stack().stopWorkers();
    try {
      await api.request("DELETE", `/v1/namespace/${namespace.id}`, { key });
      const update = await api.request("PATCH", `/v1/namespace/${namespace.id}`, { key, body: { name: "late" } });
      expect(update.status).toBe(409);
      const listed = await api.request("GET", "/v1/namespace", { key });
      expect(listed.body.data).toEqual([expect.objectContaining({ id: namespace.id, status: "DELETING" })]);
    } finally {
      api.stack().startWorkers();
    }
    await expect.poll(async () => (await api.request("GET", `/v1/namespace/${namespace.id}`, { key })).status, { timeout: 15_000 }).toBe(404);
  });
});
