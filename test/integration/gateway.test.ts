import { request as httpRequest } from "node:http";
import { connect } from "node:net";
import { describe, expect, it } from "vitest";
import { hashApiKey, keyIdFromHash } from "../../functions/shared/api-key-format.ts";
import { revokeApiKey } from "../../functions/shared/db/organizations.ts";
import { MAX_TEXT_CHARACTERS } from "../../functions/shared/domain/ingest-job.ts";
import { GATEWAY_ERRORS } from "../../functions/shared/gateway-errors.ts";
import { newNamespace } from "../support/ingestion.ts";
import { useLocalStack } from "../support/local-stack.ts";

// The authorizer cache keeps the dev stage's TTL (60 s), longer than any test here.
const api = useLocalStack({ workers: false });

function gatewayAddress(): { host: string; port: number } {
  const url = new URL(api.stack().baseUrl);
  return { host: url.hostname, port: Number(url.port) };
}

/** A request whose path goes out exactly as written: fetch() would resolve its dot segments first. */
function rawPathRequest(method: string, path: string, key: string, body?: unknown): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      { ...gatewayAddress(), method, path, headers: { authorization: `Bearer ${key}`, "content-type": "application/json" } },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () => resolve({ status: response.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString("utf8")) }));
      },
    );
    outgoing.on("error", reject);
    outgoing.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

/** Writes raw bytes to the gateway and reads the response until the gateway closes the connection. */
function rawExchange(bytes: string): Promise<{ status: number; headers: string; body: any }> {
  return new Promise((resolve, reject) => {
    const socket = connect(gatewayAddress(), () => socket.write(bytes));
    const chunks: Buffer[] = [];
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.on("error", reject);
    socket.setTimeout(10_000, () => socket.destroy(new Error("the gateway neither answered nor closed the connection")));
    socket.on("close", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      const [head = "", body = ""] = text.split("\r\n\r\n", 2);
      let parsed: unknown = body;
      try {
        parsed = JSON.parse(body);
      } catch {
        // Not JSON: the assertion shows the raw text.
      }
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0), headers: head, body: parsed });
    });
  });
}

const envelopeOf = (error: { code: string; message: string }) => ({ success: false, error: { code: error.code, message: error.message } });

describe("the authorizer's cached policy", () => {
  it("lets one key GET, POST and DELETE within the cache TTL, as API Gateway does with the policy cached from the first request", async () => {
    const { key } = await api.newOrganization();
    expect((await api.request("GET", "/v1/namespace", { key })).status).toBe(200);
    // Revoked now, the key keeps working on its cached policy: every request below is decided by
    // the policy the GET above produced.
    expect(await revokeApiKey(keyIdFromHash(hashApiKey(key)))).not.toBeNull();

    const created = await api.request("POST", "/v1/namespace", { key, body: { name: "Mixed", slug: `mixed-${Date.now()}` } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const renamed = await api.request("PATCH", `/v1/namespace/${created.body.data.id}`, { key, body: { name: "Renamed" } });
    expect(renamed.status).toBe(200);
    const deleted = await api.request("DELETE", `/v1/namespace/${created.body.data.id}`, { key });
    expect(deleted.status).toBe(200);
  });
});

describe("dot segments in the path", () => {
  it.each(["%2e%2e", "%2E%2e", "..", ".", "%2e"])("refuses DELETE …/documents/%s with 400 and leaves the namespace alone", async (segment) => {
    const ns = await newNamespace(api);
    const response = await rawPathRequest("DELETE", `${ns.base}/documents/${segment}`, ns.key);
    expect(response).toEqual({ status: 400, body: envelopeOf(GATEWAY_ERRORS.dotSegment) });
    const namespace = await ns.call("GET", "");
    expect(namespace.body.data.status).toBe("ACTIVE");
  });

  it("refuses PATCH …/ingest-jobs/.. with 400 and does not rename the namespace", async () => {
    const ns = await newNamespace(api);
    const response = await rawPathRequest("PATCH", `${ns.base}/ingest-jobs/..`, ns.key, { name: "Pwned" });
    expect(response).toEqual({ status: 400, body: envelopeOf(GATEWAY_ERRORS.dotSegment) });
    expect((await ns.call("GET", "")).body.data.name).toBe("Test");
  });

  it("keeps an encoded slash inside its parameter: it never reaches another route", async () => {
    const ns = await newNamespace(api);
    const response = await rawPathRequest("DELETE", `${ns.base}%2Fdocuments%2Fdoc_x`, ns.key);
    expect(response.status).toBe(400);
    expect((await ns.call("GET", "")).body.data.status).toBe("ACTIVE");
  });
});

describe("request sizes", () => {
  it(`accepts the largest valid TEXT job even with every character sent as a \\u escape (${MAX_TEXT_CHARACTERS} characters)`, async () => {
    const ns = await newNamespace(api);
    const escaped = (count: number, escape: string) => escape.repeat(count);
    const body =
      `{"name":"${escaped(256, "\\u00e9")}","externalId":"${escaped(256, "\\u00e9")}",` +
      `"payload":{"type":"TEXT","fileName":"${escaped(255, "\\u00e9")}","text":"${escaped(MAX_TEXT_CHARACTERS, "\\u4e2d")}"}}`;
    const response = await ns.call("POST", "/ingest-jobs", { rawBody: body, headers: { "content-type": "application/json" } });
    expect(response.status, JSON.stringify(response.body).slice(0, 300)).toBe(201);
  });

  it("refuses a TEXT one character over the limit with 422 naming the limit", async () => {
    const ns = await newNamespace(api);
    const response = await ns.call("POST", "/ingest-jobs", { body: { payload: { type: "TEXT", text: "a".repeat(MAX_TEXT_CHARACTERS + 1) } } });
    expect(response.status).toBe(422);
    expect(response.body.error.message).toBe(
      `payload.text: must be at most ${MAX_TEXT_CHARACTERS.toLocaleString("en-US")} characters; send longer texts as a file upload (MANAGED_FILE)`,
    );
  });

  it("answers 413 in the envelope for a body under 10 MB whose Lambda event would exceed 6 MB", async () => {
    const ns = await newNamespace(api);
    const response = await ns.call("POST", "/ingest-jobs", { body: { payload: { type: "TEXT", text: "a".repeat(7_000_000) } } });
    expect(response).toMatchObject({ status: 413, body: envelopeOf(GATEWAY_ERRORS.payloadTooLarge) });
  });
});

describe("requests Node's HTTP parser refuses", () => {
  it("answers an unknown method like API Gateway answers a method no route has: 404 in the envelope", async () => {
    const response = await rawExchange("FOO /v1/namespace HTTP/1.1\r\nHost: local\r\n\r\n");
    expect(response.status).toBe(404);
    expect(response.headers).toMatch(/content-type: application\/json/i);
    expect(response.body).toEqual(envelopeOf(GATEWAY_ERRORS.routeNotFound));
  });

  it("answers CONNECT with 404 in the envelope instead of dropping the connection", async () => {
    const response = await rawExchange("CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n");
    expect(response.status).toBe(404);
    expect(response.body).toEqual(envelopeOf(GATEWAY_ERRORS.routeNotFound));
  });

  it.each([
    ["a 20 KB header", `GET /v1/namespace HTTP/1.1\r\nHost: local\r\nX-Filler: ${"a".repeat(20 * 1024)}\r\n\r\n`],
    ["a 20 KB path", `GET /v1/${"a".repeat(20 * 1024)} HTTP/1.1\r\nHost: local\r\n\r\n`],
  ])("answers %s with 400 in the envelope", async (_case, bytes) => {
    const response = await rawExchange(bytes);
    expect(response.status).toBe(400);
    expect(response.body).toEqual(envelopeOf(GATEWAY_ERRORS.headersTooLarge));
  });

  it("answers a malformed request line with 400 in the envelope", async () => {
    const response = await rawExchange("GET /v1/namespace HTTP/9\r\n\r\n");
    expect(response.status).toBe(400);
    expect(response.body).toEqual(envelopeOf(GATEWAY_ERRORS.badRequest));
  });
});
