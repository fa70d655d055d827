import { createHash, createHmac } from "node:crypto";
import { createServer, request as forward, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { SignatureV4 } from "@smithy/signature-v4";

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

type SourceData = string | ArrayBuffer | ArrayBufferView;

function toBinary(data: SourceData): string | Uint8Array {
  if (typeof data === "string") return data;
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
}

class Sha256 {
  private readonly hash;
  constructor(secret?: SourceData) {
    this.hash = secret ? createHmac("sha256", toBinary(secret)) : createHash("sha256");
  }
  update(data: SourceData): void {
    this.hash.update(toBinary(data));
  }
  async digest(): Promise<Uint8Array> {
    return this.hash.digest();
  }
}

const AUTH_QUERY = new Set([
  "X-Amz-Algorithm",
  "X-Amz-Credential",
  "X-Amz-Date",
  "X-Amz-Expires",
  "X-Amz-SignedHeaders",
  "X-Amz-Signature",
  "X-Amz-Content-Sha256",
  "X-Amz-Security-Token",
]);

export async function startS3Gateway(options: S3GatewayOptions): Promise<S3Gateway> {
  const upstream = new URL(options.upstream);
  const signer = new SignatureV4({
    service: "s3",
    region: options.region,
    credentials: { accessKeyId: options.accessKeyId, secretAccessKey: options.secretAccessKey },
    sha256: Sha256,
    uriEscapePath: false,
    applyChecksum: false,
  });

  const server: Server = createServer(async (req, res) => {
    try {
      const url = new URL(req.url ?? "/", "http://local");
      if (url.searchParams.has("X-Amz-Signature")) {
        const refusal = await verifyPresigned(signer, req, url);
        if (refusal) return sendS3Error(res, refusal.code, refusal.message);
      }
      proxy(req, res, upstream);
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

async function verifyPresigned(
  signer: SignatureV4,
  req: IncomingMessage,
  url: URL,
): Promise<{ code: string; message: string } | null> {
  const params = url.searchParams;
  const amzDate = params.get("X-Amz-Date") ?? "";
  const expires = Number(params.get("X-Amz-Expires"));
  const signedHeaders = (params.get("X-Amz-SignedHeaders") ?? "").split(";").filter(Boolean);
  const signingDate = parseAmzDate(amzDate);
  if (!signingDate || !Number.isInteger(expires) || signedHeaders.length === 0) {
    return { code: "AuthorizationQueryParametersError", message: "The presigned URL is malformed." };
  }
  if (Date.now() > signingDate.getTime() + expires * 1000) {
    return { code: "AccessDenied", message: "Request has expired" };
  }
  const headers: Record<string, string> = {};
  for (const name of signedHeaders) {
    const value = req.headers[name];
    if (value === undefined) return { code: "SignatureDoesNotMatch", message: `Signed header ${name} is missing.` };
    headers[name] = Array.isArray(value) ? value.join(",") : value;
  }
  headers["x-amz-content-sha256"] = params.get("X-Amz-Content-Sha256") ?? "UNSIGNED-PAYLOAD";
  const query: Record<string, string> = {};
  for (const [key, value] of params) if (!AUTH_QUERY.has(key)) query[key] = value;
  const expected = await signer.presign(
    { method: req.method ?? "GET", protocol: "http:", hostname: "local", path: url.pathname, query, headers },
    {
      signingDate,
      expiresIn: expires,
      signableHeaders: new Set(signedHeaders),
      unhoistableHeaders: new Set(signedHeaders),
    },
  );
  if (expected.query?.["X-Amz-Signature"] !== params.get("X-Amz-Signature")) {
    return {
      code: "SignatureDoesNotMatch",
      message: "The request signature we calculated does not match the signature you provided.",
    };
  }
  return null;
}

function parseAmzDate(value: string): Date | null {
  const match = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(value);
  if (!match) return null;
  const [, y, mo, d, h, mi, s] = match;
  return new Date(Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s)));
}

function proxy(req: IncomingMessage, res: ServerResponse, upstream: URL): void {
  const outgoing = forward(
    {
      host: upstream.hostname,
      port: upstream.port,
      method: req.method,
      path: req.url,
      headers: { ...req.headers, host: upstream.host },
    },
    (upstreamResponse) => {
      res.writeHead(upstreamResponse.statusCode ?? 502, upstreamResponse.headers);
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
