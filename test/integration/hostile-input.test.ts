import { startRedirectingServer, type RedirectingServer } from "../support/redirecting-server.ts";
import { UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dynamo } from "../../functions/shared/db/dynamo/client.ts";
import { config } from "../../functions/shared/platform/env.ts";
import { keys } from "../../functions/shared/db/dynamo/keys.ts";
import { useLocalStack } from "../support/local-stack.ts";
import { documentsOfJob, newNamespace, type TestNamespace, upload, waitForJob } from "../support/ingestion.ts";

// The FILE URL guard stays on: only the test server's own address (all of 127/8 is loopback on
// Linux; 127.0.0.1 is the interface address and stays refused) is let through.
const api = useLocalStack({ env: { FILE_URL_ALLOWED_NETWORKS: "127.0.0.2/32" } });

async function managedFileDocument(ns: TestNamespace, fileName?: string) {
  const key = await upload(ns, "source.md", "text/markdown", "# Source\n\nSome text to download again.");
  const created = await ns.call("POST", "/ingest-jobs", { body: { payload: { type: "MANAGED_FILE", key, ...(fileName ? { fileName } : {}) } } });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const job = await waitForJob(ns, created.body.data.id);
  expect(job.status).toBe("COMPLETED");
  const [document] = await documentsOfJob(ns, job.id);
  return { key, document };
}

async function downloadDisposition(ns: TestNamespace, documentId: string) {
  const response = await ns.call("POST", `/documents/${documentId}/file-download-url`);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  const url = new URL(response.body.data.url);
  const download = await fetch(url);
  expect(download.status).toBe(200);
  return { signed: url.searchParams.get("response-content-disposition"), returned: download.headers.get("content-disposition") };
}

describe("strings that are not well-formed UTF-16", () => {
  it("refuses a MANAGED_FILE key with a lone surrogate with 422 naming the field (was a 500)", async () => {
    const ns = await newNamespace(api);
    const response = await ns.call("POST", "/ingest-jobs", {
      body: { payload: { type: "MANAGED_FILE", key: `namespaces/${ns.namespaceId}/uploads/x/a\ud800.md` } },
    });
    expect(response.status).toBe(422);
    expect(response.body.error).toMatchObject({ code: "unprocessable_entity", message: expect.stringMatching(/^payload\.key: .*surrogate/) });
  });

  it.each([
    ["an upload file name", "POST", "/uploads", { fileName: "a\udc00.md", contentType: "text/markdown", fileSize: 3 }, "fileName"],
    [
      "a FILE URL in a batch",
      "POST",
      "/ingest-jobs",
      { payload: { type: "BATCH", items: [{ type: "TEXT", text: "ok" }, { type: "FILE", fileUrl: "https://example.com/\ud800" }] } },
      "payload.items.1.fileUrl",
    ],
    ["a document name", "POST", "/ingest-jobs", { payload: { type: "TEXT", text: "ok", fileName: "x\ud800" } }, "payload.fileName"],
    ["an externalId", "POST", "/ingest-jobs", { payload: { type: "TEXT", text: "ok" }, externalId: "\udfff" }, "externalId"],
    ["a metadata value", "POST", "/ingest-jobs", { payload: { type: "TEXT", text: "ok" }, config: { metadata: { tag: ["fine", "\ud800"] } } }, "config.metadata.tag.1"],
    ["a metadata key", "POST", "/ingest-jobs", { payload: { type: "TEXT", text: "ok" }, config: { metadata: { "k\ud800": "v" } } }, "config.metadata"],
    ["a namespace name", "PATCH", "", { name: "n\ud800" }, "name"],
  ])("refuses %s with a lone surrogate with 422 naming the field", async (_, method, path, body, field) => {
    const ns = await newNamespace(api);
    const response = await ns.call(method, path, { body });
    expect(response.status, JSON.stringify(response.body)).toBe(422);
    expect(response.body.error.message.startsWith(`${field}: `), response.body.error.message).toBe(true);
  });

  it("still serves createFileDownloadUrl for a document stored with a lone surrogate in its name (was a 500)", async () => {
    const ns = await newNamespace(api);
    const { document } = await managedFileDocument(ns);
    // Written directly, as a record created before requests were checked would be.
    await dynamo().send(
      new UpdateCommand({
        TableName: config.tableName(),
        Key: keys.document(document.id),
        UpdateExpression: "SET #name = :name",
        ExpressionAttributeNames: { "#name": "name" },
        ExpressionAttributeValues: { ":name": "a\ud800b.md" },
      }),
    );
    const { returned } = await downloadDisposition(ns, document.id);
    expect(returned).toBe(`attachment; filename="a_b.md"; filename*=UTF-8''a%EF%BF%BDb.md`);
  });
});

describe("download names", () => {
  it("offer only the base name, with an RFC 8187 filename*, exactly as S3 returns it", async () => {
    const ns = await newNamespace(api);
    const { document } = await managedFileDocument(ns, "../../../etc/passwd.txt");
    expect(document.name).toBe("../../../etc/passwd.txt");
    const expected = `attachment; filename="passwd.txt"; filename*=UTF-8''passwd.txt`;
    expect(await downloadDisposition(ns, document.id)).toEqual({ signed: expected, returned: expected });

    const { document: named } = await managedFileDocument(ns, `reports\\Résumé "final" (v2).md`);
    const { returned } = await downloadDisposition(ns, named.id);
    expect(returned).toBe(`attachment; filename="R_sum_ _final_ (v2).md"; filename*=UTF-8''R%C3%A9sum%C3%A9%20%22final%22%20%28v2%29.md`);
  });
});

describe("hosting records", () => {
  it("refuses 1,000 e-mails of 450 characters with 422 naming allowedEmails (was a 500 from DynamoDB)", async () => {
    const ns = await newNamespace(api);
    expect((await ns.call("POST", "/hosting", { body: {} })).status).toBe(201);
    const domain = `${`${"b".repeat(63)}.`.repeat(5)}${"c".repeat(61)}.com`;
    const allowedEmails = Array.from({ length: 1000 }, (_, index) => `${"a".repeat(60)}${String(index).padStart(4, "0")}@${domain}`);
    expect(allowedEmails.every((address) => address.length === 450)).toBe(true);
    const response = await ns.call("PATCH", "/hosting", { body: { allowedEmails } });
    expect(response.status).toBe(422);
    expect(response.body.error.message).toMatch(/^allowedEmails\.0: /);
    expect((await ns.call("GET", "/hosting")).body.data.allowedEmails).toEqual([]);
  });
});

describe("FILE payloads with the guard on", () => {
  let server: RedirectingServer;
  let origin = "";
  beforeAll(async () => {
    server = await startRedirectingServer({ "/guide.md": { contentType: "text/markdown", body: "# Guide\n\nServed from 127.0.0.2.\n" } }, (port) => ({
      "/moved": "/guide.md",
      "/to-loopback": `http://127.0.0.1:${port}/guide.md`,
      "/to-metadata": "http://169.254.169.254/latest/meta-data/iam/security-credentials/",
    }));
    origin = server.origin;
  });
  afterAll(() => server.close());

  it("accepts a public IPv4 address at request time (was a 400)", async () => {
    const ns = await newNamespace(api);
    // Nothing here may reach the internet: the job is deleted before any worker could fetch it.
    await api.stack().stopWorkers();
    try {
      const created = await ns.call("POST", "/ingest-jobs", { body: { payload: { type: "FILE", fileUrl: "http://8.8.8.8/x.txt" } } });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      expect((await ns.call("DELETE", `/ingest-jobs/${created.body.data.id}`)).status).toBe(200);
    } finally {
      api.stack().startWorkers();
    }
  });

  it.each([
    "http://[::127.0.0.1]/x.txt",
    "http://[::ffff:0:127.0.0.1]/x.txt",
    "http://[::ffff:127.0.0.1]/x.txt",
    "http://[64:ff9b::7f00:1]/x.txt",
    "http://[64:ff9b::a9fe:a9fe]/latest/meta-data/",
    "http://localhost./x.txt",
    "http://169.254.169.254/latest/meta-data/",
    "http://[fd00:ec2::254]/latest/meta-data/",
    "http://127.0.0.1:9/x.txt",
  ])("refuses %s at request time with 400", async (fileUrl) => {
    const ns = await newNamespace(api);
    const response = await ns.call("POST", "/ingest-jobs", {
      body: { payload: { type: "BATCH", items: [{ type: "TEXT", text: "ok" }, { type: "FILE", fileUrl }] } },
    });
    expect(response.status).toBe(400);
    expect(response.body.error.message).toMatch(/^payload\.items\.1\.fileUrl: the URL points at /);
  });

  it("fetches from an allowed network and re-checks every redirect hop", async () => {
    const ns = await newNamespace(api);
    const created = await ns.call("POST", "/ingest-jobs", {
      body: {
        payload: {
          type: "BATCH",
          items: [
            { type: "FILE", fileUrl: `${origin}/moved` },
            { type: "FILE", fileUrl: `${origin}/to-loopback` },
            { type: "FILE", fileUrl: `${origin}/to-metadata` },
          ],
        },
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    await waitForJob(ns, created.body.data.id);
    const documents = await documentsOfJob(ns, created.body.data.id);
    const byName = Object.fromEntries(documents.map((document) => [document.name, document]));
    expect(byName.moved).toMatchObject({ status: "COMPLETED" });
    expect(byName["to-loopback"]).toMatchObject({ status: "FAILED", error: expect.stringMatching(/refused to fetch http:\/\/127\.0\.0\.1:\d+\/guide\.md: the URL points at this machine/) });
    expect(byName["to-metadata"]).toMatchObject({ status: "FAILED", error: expect.stringMatching(/refused to fetch http:\/\/169\.254\.169\.254\/.*: the URL points at a private/) });
  });
});
