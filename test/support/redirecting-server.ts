import { createServer } from "node:http";

export interface RedirectingServer {
  origin: string;
  close(): Promise<void>;
}

/**
 * An HTTP server on 127.0.0.2 (all of 127/8 is loopback on Linux, but only 127.0.0.1 is an
 * interface address, so tests can allow this one address and keep the rest of the guard on) that
 * serves fixed files and answers other paths with 302s, built from the port once it is known.
 */
export async function startRedirectingServer(
  files: Record<string, { contentType: string; body: string }>,
  redirects: (port: number) => Record<string, string>,
): Promise<RedirectingServer> {
  const server = createServer((req, res) => {
    const file = req.url ? files[req.url] : undefined;
    const location = req.url ? redirects((server.address() as { port: number }).port)[req.url] : undefined;
    if (file) {
      res.writeHead(200, { "content-type": file.contentType });
      res.end(file.body);
    } else if (location) {
      res.writeHead(302, { location });
      res.end();
    } else {
      res.writeHead(404);
      res.end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.2", () => resolve()));
  return {
    origin: `http://127.0.0.2:${(server.address() as { port: number }).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
