import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import { createServer, request as forward, type IncomingMessage, type Server, type ServerResponse } from "node:http";

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

function sendS3Error(res: ServerResponse, code: string, message: string, status = 403): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res.writeHead(status, { "content-type": "application/xml" });
  res.end(`<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${escapeXml(message)}</Message></Error>`);
}

function escapeXml(text: string): string {
  return text.replace(/[<>&"']/g, (char) => `&#${char.charCodeAt(0)};`);
}
