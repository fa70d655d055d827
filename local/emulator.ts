import type { AddressInfo } from "node:net";
import { buildApp } from "fauxqs";

export interface QueueState {
  messages: { ready: { body: string }[]; delayed: { body: string }[]; inflight: { message: { body: string } }[] };
}

export interface Emulator {
  /** `http://127.0.0.1:<port>`: S3 and SQS on one port. */
  endpoint: string;
  /** The messages of a queue, without receiving them; undefined for an unknown queue. */
  inspectQueue(name: string): Promise<QueueState | undefined>;
  stop(): Promise<void>;
}

/**
 * The fauxqs S3/SQS emulator, listening on 127.0.0.1 only. fauxqs's own `startFauxqs` always
 * listens on 0.0.0.0 (its `host` option only names the host in queue URLs), which would serve the
 * bucket and queues to every machine that can reach this one, without a key; so the app it builds
 * is served here instead. Queue URLs keep fauxqs's `sqs.<region>.localhost` form.
 */
export async function startEmulator(options: { region: string }): Promise<Emulator> {
  const app = buildApp({ logger: false, host: "localhost", defaultRegion: options.region });
  await app.listen({ port: 0, host: "127.0.0.1" });
  const { port } = app.server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    async inspectQueue(name) {
      const response = await app.inject({ method: "GET", url: `/_fauxqs/queues/${encodeURIComponent(name)}` });
      return response.statusCode === 200 ? (response.json() as QueueState) : undefined;
    },
    stop: () => app.close(),
  };
}
