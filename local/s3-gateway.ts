import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import { createServer, request as forward, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { isPagedListing, servePagedListing } from "./s3-listing.ts";
import { escapeXml, upstreamCall } from "./s3-upstream.ts";

/**
 * A front for the S3 emulator that checks presigned URLs the way S3 does. The emulator accepts any
 * request; real S3 refuses a presigned request whose signature does not match (another key, another
 * Content-Type or Content-Length than the one signed) or whose lifetime has passed. Without this
 * check, local runs would pass uploads that fail against AWS.
 *
 * Requests signed in headers (the SDK calls of the service itself) are forwarded unchanged.
 */
export interface S3GatewayOptions {
  upstream: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
}

export interface S3Gateway {
  endpoint: string;
  close(): Promise<void>;
}

export async function startS3Gateway(options: S3GatewayOptions): Promise<S3Gateway> {
  const upstream = new URL(options.upstream);

  const server: Server = createServer(async (req, res) => {
    try {
      const url = new URL(req.url ?? "/", "http://local");
      if (url.searchParams.has("X-Amz-Signature")) {
        const refusal = verifyPresigned(options, req);
        if (refusal) return sendS3Error(res, refusal.code, refusal.message);
      }
      if (isLargeSinglePut(req, url)) return await relayAsMultipartUpload(req, res, upstream);
      if (isPagedListing(req, url)) return await servePagedListing(req, res, upstream, url);
      proxy(req, res, upstream, responseOverrides(url));
    } catch (error) {
      sendS3Error(res, "InternalError", error instanceof Error ? error.message : String(error), 500);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/**
 * SigV4 query-string authentication, computed from the request as received: canonical request,
 * string to sign, derived key, signature. Returns why S3 would refuse the request, or null.
 */
function verifyPresigned(options: S3GatewayOptions, req: IncomingMessage): { code: string; message: string } | null {
  const [rawPath = "/", rawQuery = ""] = (req.url ?? "/").split("?", 2);
  const query = rawQuery
    .split("&")
    .filter(Boolean)
    .map((pair) => {
      const [key = "", value = ""] = pair.split("=", 2);
      return [decodeComponent(key), decodeComponent(value)] as const;
    });
  const param = (name: string) => query.find(([key]) => key === name)?.[1];
  const amzDate = param("X-Amz-Date") ?? "";
  const expires = Number(param("X-Amz-Expires"));
  const credential = (param("X-Amz-Credential") ?? "").split("/");
  const signedHeaders = (param("X-Amz-SignedHeaders") ?? "").split(";").filter(Boolean);
  const signingDate = parseAmzDate(amzDate);
  if (!signingDate || !Number.isInteger(expires) || signedHeaders.length === 0 || credential.length !== 5) {
    return { code: "AuthorizationQueryParametersError", message: "The presigned URL is malformed." };
  }
  const [accessKeyId, day, region, service] = credential as [string, string, string, string, string];
  if (accessKeyId !== options.accessKeyId) {
    return { code: "InvalidAccessKeyId", message: "The AWS access key Id you provided does not exist in our records." };
  }
  if (Date.now() > signingDate.getTime() + expires * 1000) return { code: "AccessDenied", message: "Request has expired" };

  const canonicalHeaders: string[] = [];
  for (const name of [...signedHeaders].sort()) {
    const value = req.headers[name];
    if (value === undefined) return { code: "SignatureDoesNotMatch", message: `Signed header ${name} is missing.` };
    canonicalHeaders.push(`${name}:${(Array.isArray(value) ? value.join(",") : value).trim().replace(/\s+/g, " ")}\n`);
  }
  const canonicalQuery = query
    .filter(([key]) => key !== "X-Amz-Signature")
    .map(([key, value]) => [rfc3986(key), rfc3986(value)] as const)
    .sort(([a, av], [b, bv]) => (a < b ? -1 : a > b ? 1 : av < bv ? -1 : av > bv ? 1 : 0))
    .map(([key, value]) => `${key}=${value}`)
    .join("&");
  const canonicalRequest = [
    req.method ?? "GET",
    rawPath,
    canonicalQuery,
    canonicalHeaders.join(""),
    signedHeaders.join(";"),
    param("X-Amz-Content-Sha256") ?? "UNSIGNED-PAYLOAD",
  ].join("\n");
  const scope = `${day}/${region}/${service}/aws4_request`;
  const stringToSign = ["AWS4-HMAC-SHA256", amzDate, scope, createHash("sha256").update(canonicalRequest).digest("hex")].join("\n");
  let key: Buffer = createHmac("sha256", `AWS4${options.secretAccessKey}`).update(day).digest();
  for (const part of [region, service, "aws4_request"]) key = createHmac("sha256", key).update(part).digest();
  const expected = Buffer.from(createHmac("sha256", key).update(stringToSign).digest("hex"));
  const given = Buffer.from(param("X-Amz-Signature") ?? "");
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) {
    return { code: "SignatureDoesNotMatch", message: "The request signature we calculated does not match the signature you provided." };
  }
  return null;
}

function decodeComponent(value: string): string {
  try {
    return decodeURIComponent(value.replace(/\+/g, "%20"));
  } catch {
    return value;
  }
}

/** SigV4's URI encoding: everything but unreserved characters, upper-case hex. */
function rfc3986(value: string): string {
  return encodeURIComponent(value).replace(/[!'()*]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`);
}

function parseAmzDate(value: string): Date | null {
  const match = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(value);
  if (!match) return null;
  const [, y, mo, d, h, mi, s] = match;
  return new Date(Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s)));
}

/** S3 lets a presigned GET choose response headers (`response-content-disposition` and the like). */
function responseOverrides(url: URL): Record<string, string> {
  const overrides: Record<string, string> = {};
  for (const [name, value] of url.searchParams) {
    if (name.startsWith("response-") && name !== "response-") overrides[name.slice("response-".length)] = value;
  }
  return overrides;
}

function proxy(req: IncomingMessage, res: ServerResponse, upstream: URL, overrides: Record<string, string>): void {
  const outgoing = forward(
    {
      host: upstream.hostname,
      port: upstream.port,
      method: req.method,
      path: req.url,
      headers: { ...req.headers, host: upstream.host },
    },
    (upstreamResponse) => {
      const status = upstreamResponse.statusCode ?? 502;
      res.writeHead(status, status < 300 ? { ...upstreamResponse.headers, ...overrides } : upstreamResponse.headers);
      upstreamResponse.pipe(res);
    },
  );
  outgoing.on("error", (error) => sendS3Error(res, "ServiceUnavailable", error.message, 503));
  req.pipe(outgoing);
}

/** The emulator refuses request bodies over 11 MiB; S3 takes a single PUT of up to 5 GiB. */
const EMULATOR_BODY_LIMIT = 10 * 1024 * 1024;
const RELAY_PART_BYTES = 8 * 1024 * 1024;
const S3_MAX_SINGLE_PUT = 5 * 1024 ** 3;

/** A plain PutObject (not a part, not a copy) whose body the emulator would refuse. */
function isLargeSinglePut(req: IncomingMessage, url: URL): boolean {
  if (req.method !== "PUT" || url.searchParams.has("uploadId") || url.searchParams.has("partNumber")) return false;
  if (req.headers["x-amz-copy-source"] || String(req.headers["content-encoding"] ?? "").includes("aws-chunked")) return false;
  return Number(req.headers["content-length"] ?? 0) > EMULATOR_BODY_LIMIT;
}

/**
 * Stores a large single PUT as S3 would, by relaying it to the emulator as a multipart upload of
 * 8 MiB parts. Without it the local stack would refuse (503) uploads that S3 accepts, and nothing
 * over 11 MiB could be tested locally. Bodies over S3's own single-PUT limit are refused as S3 does.
 */
async function relayAsMultipartUpload(req: IncomingMessage, res: ServerResponse, upstream: URL): Promise<void> {
  if (Number(req.headers["content-length"]) > S3_MAX_SINGLE_PUT) {
    req.resume();
    return sendS3Error(res, "EntityTooLarge", "Your proposed upload exceeds the maximum allowed size", 400);
  }
  const path = (req.url ?? "/").split("?", 1)[0]!;
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (typeof value === "string" && (name === "content-type" || name.startsWith("x-amz-meta-"))) headers[name] = value;
  }
  const created = await upstreamCall(upstream, "POST", `${path}?uploads`, headers);
  const uploadId = /<UploadId>([^<]+)<\/UploadId>/.exec(created.body.toString())?.[1];
  if (created.status !== 200 || !uploadId) return relayFailure(res, created);
  const query = (partNumber: number) => `${path}?partNumber=${partNumber}&uploadId=${encodeURIComponent(uploadId)}`;
  const etags: string[] = [];
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  const sendPart = async () => {
    const part = await upstreamCall(upstream, "PUT", query(etags.length + 1), {}, Buffer.concat(pending));
    pending = [];
    pendingBytes = 0;
    if (part.status !== 200) throw new Error(`part upload answered ${part.status}`);
    etags.push(String(part.headers.etag ?? ""));
  };
  try {
    for await (const chunk of req) {
      pending.push(chunk as Buffer);
      pendingBytes += (chunk as Buffer).length;
      if (pendingBytes >= RELAY_PART_BYTES) await sendPart();
    }
    if (pendingBytes > 0 || etags.length === 0) await sendPart();
    const parts = etags.map((etag, index) => `<Part><PartNumber>${index + 1}</PartNumber><ETag>${etag}</ETag></Part>`).join("");
    const completed = await upstreamCall(upstream, "POST", `${path}?uploadId=${encodeURIComponent(uploadId)}`, { "content-type": "application/xml" }, Buffer.from(`<CompleteMultipartUpload>${parts}</CompleteMultipartUpload>`));
    if (completed.status !== 200) return relayFailure(res, completed);
    const etag = /<ETag>([^<]+)<\/ETag>/.exec(completed.body.toString())?.[1] ?? "";
    res.writeHead(200, { etag: etag.replace(/&quot;/g, '"') });
    res.end();
  } catch (error) {
    await upstreamCall(upstream, "DELETE", `${path}?uploadId=${encodeURIComponent(uploadId)}`, {}).catch(() => undefined);
    throw error;
  }
}

function relayFailure(res: ServerResponse, answer: { status: number; headers: Record<string, unknown>; body: Buffer }): void {
  res.writeHead(answer.status >= 300 ? answer.status : 502, { "content-type": String(answer.headers["content-type"] ?? "application/xml") });
  res.end(answer.body);
}

function sendS3Error(res: ServerResponse, code: string, message: string, status = 403): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res.writeHead(status, { "content-type": "application/xml" });
  res.end(`<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${escapeXml(message)}</Message></Error>`);
}
