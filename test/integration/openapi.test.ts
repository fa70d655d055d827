import { readFileSync } from "node:fs";
import { Validator } from "@seriousme/openapi-schema-validator";
import { OpenAPIClientAxios } from "openapi-client-axios";
import { describe, expect, it } from "vitest";
import { OPENAPI_FILE } from "../../lib/openapi/build.ts";
import { useLocalStack } from "../support/local-stack.ts";

const api = useLocalStack();

type Operation = (parameters?: Record<string, string> | null, body?: unknown) => Promise<{ status: number; data: any }>;

describe("the published contract", () => {
  it("serves the committed OpenAPI document at GET /openapi.json without a key, and it validates as OpenAPI 3.1", async () => {
    const response = await fetch(`${api.stack().baseUrl}/openapi.json`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/json; charset=utf-8");
    const served = (await response.json()) as Record<string, unknown>;
    expect(served).toEqual(JSON.parse(readFileSync(OPENAPI_FILE, "utf8")));
    const validation = await new Validator().validate(served as Parameters<Validator["validate"]>[0]);
    expect(validation.errors ?? [], JSON.stringify(validation.errors)).toEqual([]);
    expect(validation.valid).toBe(true);
    expect(served.openapi).toBe("3.1.0");
  });

  it("serves a reference page rendered from the document at GET /docs, readable without JavaScript", async () => {
    const response = await fetch(`${api.stack().baseUrl}/docs`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
    const page = await response.text();
    expect(page).toMatch(/^<!doctype html>\n<html lang="en">/);
    expect(page).not.toContain("<script");
    for (const operationId of ["createNamespace", "listIngestJobs", "createChunksDownloadUrl", "search"]) {
      expect(page).toContain(`id="${operationId}"`);
    }
    expect(page).toContain("<caption>Parameters</caption>");
    expect(page).toContain('<a href="openapi.json">openapi.json</a>');
  });

  it("drives the quick-start flow with a client built from the served document alone", async () => {
    const { key } = await api.newOrganization();
    const baseUrl = api.stack().baseUrl;
    const openapi = new OpenAPIClientAxios({
      definition: `${baseUrl}/openapi.json`,
      withServer: { url: baseUrl },
      axiosConfigDefaults: { headers: { Authorization: `Bearer ${key}` }, validateStatus: () => true },
    });
    // Operations are named by the document's operationIds: nothing about the API is written here.
    const client = (await openapi.init()) as unknown as Record<string, Operation>;

    const listed = await client.listNamespaces!();
    expect(listed.status).toBe(200);
    expect(listed.data).toEqual({ success: true, data: [] });

    const namespace = await client.createNamespace!(null, { name: "Docs", slug: "docs" });
    expect(namespace.status, JSON.stringify(namespace.data)).toBe(201);
    const namespaceId = namespace.data.data.id as string;

    const job = await client.createIngestJob!({ namespaceId }, { payload: { type: "TEXT", text: "Hello, world. The quick start ingests this sentence." } });
    expect(job.status, JSON.stringify(job.data)).toBe(201);
    const jobId = job.data.data.id as string;

    let status = "";
    for (let attempt = 0; attempt < 100 && status !== "COMPLETED" && status !== "FAILED"; attempt++) {
      const current = await client.getIngestJob!({ namespaceId, jobId });
      expect(current.status).toBe(200);
      status = current.data.data.status;
      if (status !== "COMPLETED") await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(status).toBe("COMPLETED");

    const results = await client.search!({ namespaceId }, { query: "quick start sentence", topK: 3 });
    expect(results.status, JSON.stringify(results.data)).toBe(200);
    expect(results.data.data[0].text).toContain("quick start ingests this sentence");

    const refused = await client.getNamespace!({ namespaceId: "ns_doesnotexist" });
    expect(refused.status).toBe(404);
    expect(refused.data).toMatchObject({ success: false, error: { code: "not_found" } });
  });
});
