import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { buildOpenApiDocument, OPENAPI_FILE, serializeOpenApiDocument } from "../../lib/openapi/build.ts";
import { ROUTES } from "../../lib/routes.ts";
import type { Exchange } from "../../local/gateway.ts";
import { ContractChecker } from "../support/contract.ts";

const committed = () => JSON.parse(readFileSync(OPENAPI_FILE, "utf8")) as Record<string, any>;

const namespace = {
  id: "ns_abc",
  name: "Docs",
  slug: "docs",
  organizationId: "org_1",
  createdAt: "2026-11-23T07:00:00.000Z",
  status: "ACTIVE",
  embeddingConfig: { provider: "LOCAL", model: "local-hash-384" },
  vectorStoreConfig: { provider: "MANAGED_VECTORSTORE" },
};

function exchange(status: number, body: unknown, overrides: Partial<Exchange> = {}): Exchange {
  return {
    method: "GET",
    url: "/v1/namespace/ns_abc",
    requestHeaders: {},
    requestBody: "",
    status,
    responseHeaders: { "content-type": "application/json; charset=utf-8" },
    responseBody: JSON.stringify(body),
    ...overrides,
  };
}

describe("the OpenAPI document", () => {
  it("is committed as generated: run npm run openapi after changing a route contract or a schema", async () => {
    const generated = serializeOpenApiDocument(await buildOpenApiDocument());
    expect(readFileSync(OPENAPI_FILE, "utf8")).toBe(generated);
  }, 60_000);

  it("documents every route once, with a unique operationId, the bearer scheme, and no key for the contract itself", () => {
    const document = committed();
    const ids: string[] = [];
    for (const route of ROUTES) {
      const operation = document.paths[route.path]?.[route.method.toLowerCase()];
      expect(operation, `${route.method} ${route.path}`).toBeDefined();
      ids.push(operation.operationId);
      if (route.fn.public) expect(operation.security).toEqual([]);
      else expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(["401", "403", "429", "500"]));
    }
    expect(new Set(ids).size).toBe(ids.length);
    expect(document.components.securitySchemes.bearerAuth).toMatchObject({ type: "http", scheme: "bearer" });
  });

  it("gives every error status the error envelope, and 422 only to routes that validate a query or body", () => {
    const document = committed();
    expect(document.paths["/v1/namespace/{namespaceId}/search"].post.responses["422"]).toBeDefined();
    expect(document.paths["/v1/namespace/{namespaceId}"].get.responses["422"]).toBeUndefined();
    expect(document.paths["/v1/namespace/{namespaceId}/documents/{documentId}/chunks-download-url"].post.responses["409"]).toBeDefined();
    expect(document.components.schemas.Error.properties.error.required).toEqual(["code", "message"]);
  });
});

describe("the contract check of the integration suite", () => {
  it("passes a response that matches the document", () => {
    expect(new ContractChecker(committed()).check(exchange(200, { success: true, data: namespace }))).toEqual([]);
  });

  it("fails when the document's schema disagrees with what the service sends", () => {
    const document = committed();
    document.components.schemas.Namespace.properties.slug = { type: "integer" };
    const problems = new ContractChecker(document).check(exchange(200, { success: true, data: namespace }));
    expect(problems).toEqual([expect.stringContaining("GET /v1/namespace/ns_abc → 200: response body of getNamespace: /data/slug must be integer")]);
  });

  it("fails on an undocumented field, an undocumented status and an accepted request the document refuses", () => {
    const checker = new ContractChecker(committed());
    expect(checker.check(exchange(200, { success: true, data: { ...namespace, secret: "x" } }))[0]).toContain("must NOT have additional properties");
    expect(checker.check(exchange(422, { success: false, error: { code: "unprocessable_entity", message: "no" } }))[0]).toContain(
      "status 422 is not documented for getNamespace",
    );
    const search = exchange(200, { success: true, data: [] }, { method: "POST", url: "/v1/namespace/ns_abc/search", requestBody: JSON.stringify({ query: "x", topK: 500 }) });
    expect(checker.check(search)[0]).toContain("accepted request body of search: /topK must be <= 100");
  });
});
