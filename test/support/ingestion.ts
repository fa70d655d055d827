import { expect } from "vitest";
import type { ChunksFile } from "../../functions/shared/domain/chunks.ts";
import type { TestApi } from "./local-stack.ts";

/** A fresh organization and namespace, with helpers for the namespace's endpoints. */
export async function newNamespace(api: TestApi, options: { headers?: Record<string, string>; body?: Record<string, unknown> } = {}) {
  const { key, organizationId } = await api.newOrganization();
  const slug = `ns-${Math.random().toString(36).slice(2, 10)}`;
  const created = await api.request("POST", "/v1/namespace", { key, body: { name: "Test", slug, ...options.body } });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const namespaceId: string = created.body.data.id;
  const base = `/v1/namespace/${namespaceId}`;
  const call = (method: string, path: string, init: { body?: unknown; headers?: Record<string, string>; rawBody?: string } = {}) =>
    api.request(method, base + path, { key, ...init, headers: { ...options.headers, ...init.headers } });
  return { key, organizationId, namespaceId, base, call };
}

export type TestNamespace = Awaited<ReturnType<typeof newNamespace>>;

/** Polls a job until it reaches one of `statuses` (60 s at most), and returns it. Usable in hooks too. */
export async function waitForJob(ns: TestNamespace, jobId: string, statuses = ["COMPLETED", "FAILED"], headers?: Record<string, string>) {
  const deadline = Date.now() + 60_000;
  let last: any;
  while (Date.now() < deadline) {
    last = (await ns.call("GET", `/ingest-jobs/${jobId}`, { headers })).body.data;
    if (statuses.includes(last?.status)) return last;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`ingest job ${jobId} did not reach ${statuses.join("/")} within 60 s; last status ${last?.status}`);
}

export async function documentsOfJob(ns: TestNamespace, jobId: string, headers?: Record<string, string>) {
  const response = await ns.call("GET", `/documents?ingestJobId=${jobId}&perPage=100&order=asc`, { headers });
  expect(response.status).toBe(200);
  return response.body.data as any[];
}

export async function ingestText(ns: TestNamespace, text: string, extra: Record<string, unknown> = {}, headers?: Record<string, string>) {
  const response = await ns.call("POST", "/ingest-jobs", { body: { payload: { type: "TEXT", text }, ...extra }, headers });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body.data;
}

/** Uploads through createUpload and the returned presigned URL; returns the key. */
export async function upload(ns: TestNamespace, fileName: string, contentType: string, content: string | Uint8Array) {
  const bytes = typeof content === "string" ? Buffer.from(content) : content;
  const target = await ns.call("POST", "/uploads", { body: { fileName, contentType, fileSize: bytes.byteLength } });
  expect(target.status, JSON.stringify(target.body)).toBe(201);
  const put = await fetch(target.body.data.url, { method: "PUT", headers: { "content-type": contentType }, body: bytes });
  expect(put.status).toBe(200);
  return target.body.data.key as string;
}

/** Creates a job for `payload` (with an optional config), waits for it to end, and returns it with its first document. */
export async function ingestAndWait(ns: TestNamespace, payload: Record<string, unknown>, config?: Record<string, unknown>) {
  const created = await ns.call("POST", "/ingest-jobs", { body: { payload, ...(config ? { config } : {}) } });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const job = await waitForJob(ns, created.body.data.id);
  const [document] = await documentsOfJob(ns, job.id);
  return { job, document };
}

/** Ingests `payload` for one tenant (`x-tenant-id`) and waits until its job is COMPLETED. */
export async function ingestForTenant(ns: TestNamespace, tenant: string, payload: Record<string, unknown>) {
  const headers = { "x-tenant-id": tenant };
  const created = await ns.call("POST", "/ingest-jobs", { body: { payload }, headers });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return waitForJob(ns, created.body.data.id, ["COMPLETED"], headers);
}

/** The published chunks file of a COMPLETED document, through createChunksDownloadUrl. */
export async function chunksOf(ns: TestNamespace, documentId: string): Promise<ChunksFile> {
  const response = await ns.call("POST", `/documents/${documentId}/chunks-download-url`);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return (await (await fetch(response.body.data.url)).json()) as ChunksFile;
}
