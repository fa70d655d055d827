import type { ServerResponse } from "node:http";
import { Writable } from "node:stream";

/**
 * Lambda response streaming as the Node.js runtime offers it, for handlers run in this process:
 * `awslambda.streamifyResponse` marks a handler `(event, responseStream, context)`, and
 * `awslambda.HttpResponseStream.from` writes the HTTP prelude (status and headers as JSON) and a
 * delimiter of eight zero bytes before the body, which is what API Gateway reads from a streamed
 * integration. The local gateway reads the same bytes back, so a handler that gets the framing
 * wrong fails here as it would in AWS.
 */
const STREAMING = Symbol.for("aws.lambda.runtime.handler.streaming");
const DELIMITER = Buffer.alloc(8);

export type StreamingHandler = ((event: unknown, responseStream: Writable, context: unknown) => Promise<unknown>) & { [STREAMING]?: string };

interface ResponseMetadata {
  statusCode?: number;
  headers?: Record<string, string>;
  cookies?: string[];
}

/** Installs the runtime's streaming globals, once, before any handler module is imported. */
export function installResponseStreaming(): void {
  const runtime = ((globalThis as { awslambda?: Record<string, unknown> }).awslambda ??= {});
  runtime.streamifyResponse ??= (handler: StreamingHandler) => Object.assign(handler, { [STREAMING]: "response" });
  runtime.HttpResponseStream ??= {
    from(stream: Writable, metadata: ResponseMetadata): Writable {
      stream.write(Buffer.from(JSON.stringify(metadata)));
      stream.write(DELIMITER);
      return stream;
    },
  };
}

export function isStreamingHandler(handler: unknown): handler is StreamingHandler {
  return typeof handler === "function" && (handler as StreamingHandler)[STREAMING] === "response";
}

/**
 * The stream a streaming handler writes to: it parses the prelude into the response's status and
 * headers, then passes every later write straight to the client, so what the model produces
 * reaches the client as it is produced. A handler that writes no prelude answers 200 with the
 * bytes as they are, as Lambda does.
 */
export function responseStreamTo(res: ServerResponse): Writable {
  let pending: Buffer | null = Buffer.alloc(0);
  const start = (metadata: ResponseMetadata) => {
    const headers: Record<string, string | string[]> = { ...metadata.headers };
    if (metadata.cookies?.length) headers["set-cookie"] = metadata.cookies;
    res.writeHead(metadata.statusCode ?? 200, headers);
  };
  return new Writable({
    write(chunk: Buffer, _encoding, callback) {
      if (pending === null) {
        res.write(chunk, () => callback());
        return;
      }
      pending = Buffer.concat([pending, chunk]);
      const end = pending.indexOf(DELIMITER);
      if (end === -1) return callback();
      let metadata: ResponseMetadata;
      try {
        metadata = JSON.parse(pending.subarray(0, end).toString("utf8")) as ResponseMetadata;
      } catch {
        return callback(new Error("the streamed response's prelude is not JSON"));
      }
      const rest = pending.subarray(end + DELIMITER.length);
      pending = null;
      start(metadata);
      if (rest.length === 0) return callback();
      res.write(rest, () => callback());
    },
    final(callback) {
      if (pending !== null) {
        // No prelude: Lambda streams the bytes as an answer of its own.
        res.writeHead(200, { "content-type": "application/octet-stream" });
        res.write(pending);
      }
      res.end(() => callback());
    },
  });
}
