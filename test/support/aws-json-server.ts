import type { IncomingMessage, ServerResponse } from "node:http";
import type { Http2ServerRequest, Http2ServerResponse } from "node:http2";

/**
 * The two halves of an AWS JSON protocol server in a test: the request body as sent (raw, for size
 * limits) and parsed, and an answer with AWS's error type header. Over HTTP/1.1 (S3 Vectors) or
 * HTTP/2 (Bedrock Runtime), as the SDK speaks each.
 */
export function readJson(request: IncomingMessage | Http2ServerRequest): Promise<{ raw: Buffer; body: any }> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const raw = Buffer.concat(chunks);
      resolve({ raw, body: raw.length > 0 ? JSON.parse(raw.toString("utf8")) : {} });
    });
  });
}

export function answer(response: ServerResponse | Http2ServerResponse, status: number, body: unknown, errorType?: string): void {
  response.writeHead(status, { "content-type": "application/json", ...(errorType ? { "x-amzn-errortype": errorType } : {}) });
  response.end(JSON.stringify(body));
}
