import type { APIGatewayProxyEvent, Context } from "aws-lambda";
import { beforeAll, describe, expect, it } from "vitest";
import { httpHandler } from "../../functions/shared/http/handler.ts";
import { namespacePath } from "../../functions/shared/domain/params.ts";
import * as z from "../../functions/shared/platform/zod.ts";
import { useLocalStack } from "../support/local-stack.ts";

// The namespace check reads the table, so these run against the emulators, with the one middy
// stack every handler is built with and an event as API Gateway sends it.
const api = useLocalStack({ workers: false });

const handler = httpHandler(
  {
    operationId: "probe",
    method: "POST",
    path: "/v1/namespace/{namespaceId}/probe",
    summary: "A route for these tests",
    tag: "Namespaces",
    request: {
      path: namespacePath,
      tenant: true,
      namespace: "active",
      query: z.object({ limit: z.optional(z.string().check(z.regex(/^\d+$/, "must be digits"))) }),
      body: z.object({ title: z.string() }),
    },
    response: { status: 200, raw: "application/json" },
  } as const,
  async ({ body, tenantId, namespace }) => ({ status: 200, data: null, raw: JSON.stringify({ success: true, data: { title: body.title, tenantId, namespaceId: namespace.id } }) }),
);

let organizationId: string;
let otherOrganizationId: string;
let namespaceId: string;
let deletingNamespaceId: string;

beforeAll(async () => {
  const owner = await api.newOrganization();
  organizationId = owner.organizationId;
  otherOrganizationId = (await api.newOrganization()).organizationId;
  const create = async (slug: string) => (await api.request("POST", "/v1/namespace", { key: owner.key, body: { name: slug, slug } })).body.data.id as string;
  namespaceId = await create(`h-${Date.now()}`);
  deletingNamespaceId = await create(`d-${Date.now()}`);
  expect((await api.request("DELETE", `/v1/namespace/${deletingNamespaceId}`, { key: owner.key })).status).toBe(200);
});

interface Request {
  namespace?: string;
  organization?: string;
  tenant?: string;
  query?: Record<string, string>;
  body?: string | null;
}

async function call(request: Request = {}) {
  const event = {
    httpMethod: "POST",
    path: `/v1/namespace/${request.namespace ?? namespaceId}/things`,
    pathParameters: { namespaceId: request.namespace ?? namespaceId },
    queryStringParameters: request.query ?? null,
    headers: request.tenant === undefined ? {} : { "x-tenant-id": request.tenant },
    body: request.body === undefined ? JSON.stringify({ title: "ok" }) : request.body,
    isBase64Encoded: false,
    requestContext: { authorizer: { organizationId: request.organization ?? organizationId, keyId: "k" } },
  } as unknown as APIGatewayProxyEvent;
  const context = { functionName: "HandlerUnderTest", awsRequestId: "r-1", getRemainingTimeInMillis: () => 10_000 } as unknown as Context;
  const result = (await handler(event, context)) as { statusCode: number; body: string };
  const parsed = JSON.parse(result.body);
  return { status: result.statusCode, code: parsed.error?.code as string | undefined, message: parsed.error?.message as string | undefined, data: parsed.data };
}

const bad = { namespace: "Not_An_Id", tenant: "no spaces!", body: "{not json", query: { limit: "x" } };

describe("httpHandler validates in a fixed order", () => {
  it("answers a valid request with the handler's reply", async () => {
    expect(await call({ tenant: "acme" })).toMatchObject({ status: 200, data: { title: "ok", tenantId: "acme", namespaceId } });
  });

  it("path first: 400 for a malformed id, whatever else is wrong", async () => {
    expect(await call(bad)).toMatchObject({ status: 400, code: "bad_request", message: expect.stringContaining("namespaceId") });
  });

  it("tenant header second: 400 before the namespace is looked up", async () => {
    expect(await call({ ...bad, namespace: "ns_doesnotexist0000000000" })).toMatchObject({ status: 400, message: expect.stringContaining("x-tenant-id") });
  });

  it("namespace third: 404 unknown, 403 another organization's, 409 being deleted", async () => {
    const rest = { body: bad.body, query: bad.query };
    expect((await call({ ...rest, namespace: namespaceId.replace(/.$/, (c) => (c === "a" ? "b" : "a")) })).status).toBe(404);
    expect(await call({ ...rest, organization: otherOrganizationId })).toMatchObject({ status: 403, code: "forbidden" });
    expect(await call({ ...rest, namespace: deletingNamespaceId })).toMatchObject({ status: 409, code: "conflict" });
  });

  it("body JSON fourth: 400 for a body that is not JSON, before the query is judged", async () => {
    expect(await call({ body: bad.body, query: bad.query })).toMatchObject({ status: 400, message: "The request body is not valid JSON." });
  });

  it("query fifth, body schema last: both 422 naming the field", async () => {
    expect(await call({ query: bad.query, body: JSON.stringify({ title: 5 }) })).toMatchObject({ status: 422, message: expect.stringMatching(/^limit: /) });
    expect(await call({ body: JSON.stringify({ title: 5 }) })).toMatchObject({ status: 422, code: "unprocessable_entity", message: expect.stringMatching(/^title: /) });
  });

  it("refuses a lone UTF-16 surrogate like a schema failure, naming the field", async () => {
    expect(await call({ body: '{"title":"\\ud800"}' })).toMatchObject({ status: 422, message: expect.stringMatching(/^title: .*surrogate/) });
  });
});
