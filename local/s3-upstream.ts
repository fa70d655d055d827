import { request as forward } from "node:http";

/** What the local S3 front and its listing send to fauxqs, and read back whole. */

export function upstreamCall(
  upstream: URL,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: Buffer,
): Promise<{ status: number; headers: Record<string, unknown>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const outgoing = forward(
      { host: upstream.hostname, port: upstream.port, method, path, headers: { ...headers, host: upstream.host, "content-length": String(body?.length ?? 0) } },
      (response) => {
        const pieces: Buffer[] = [];
        response.on("data", (piece: Buffer) => pieces.push(piece));
        response.on("end", () => resolve({ status: response.statusCode ?? 502, headers: response.headers, body: Buffer.concat(pieces) }));
        response.on("error", reject);
      },
    );
    outgoing.on("error", reject);
    outgoing.end(body);
  });
}

export function escapeXml(text: string): string {
  return text.replace(/[<>&"']/g, (char) => `&#${char.charCodeAt(0)};`);
}
