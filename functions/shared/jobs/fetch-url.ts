import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import { BlockList, isIP } from "node:net";
import { config } from "../env.ts";

/** A problem with a caller-supplied URL: the message is safe to show and retrying will not help. */
export class FileFetchError extends Error {}

const MAX_REDIRECTS = 5;
const TIMEOUT_MS = 30_000;

/** Loopback, private, link-local (incl. cloud metadata), carrier-grade NAT, multicast and reserved ranges. */
const BLOCKED = new BlockList();
for (const [network, prefix] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
] as const) {
  BLOCKED.addSubnet(network, prefix, "ipv4");
}
for (const [network, prefix] of [
  ["::", 128],
  ["::1", 128],
  ["::ffff:0:0", 96],
  ["64:ff9b::", 96],
  ["fc00::", 7],
  ["fe80::", 10],
  ["ff00::", 8],
] as const) {
  BLOCKED.addSubnet(network, prefix, "ipv6");
}

export function isBlockedAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return true;
  return BLOCKED.check(address, family === 4 ? "ipv4" : "ipv6");
}

/** Early refusal for URLs whose host is literally a blocked address or localhost. */
export function refusalReason(rawUrl: string): string | null {
  if (config.allowPrivateFileUrls()) return null;
  const url = new URL(rawUrl);
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (host === "localhost" || host.endsWith(".localhost")) return "the URL points at this machine";
  if (isIP(host) !== 0 && isBlockedAddress(host)) return "the URL points at a private, loopback or link-local address";
  return null;
}

/**
 * Resolves names itself and refuses private addresses at connection time, so a name that resolves
 * to a public address when checked and a private one when used (DNS rebinding) is still refused.
 */
function guardedLookup(
  hostname: string,
  options: object,
  callback: (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
): void {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, []);
    const list = addresses as LookupAddress[];
    if (!config.allowPrivateFileUrls() && list.some((entry) => isBlockedAddress(entry.address))) {
      return callback(Object.assign(new Error(`refused to connect to ${hostname}: it resolves to a private address`), { code: "EPRIVATE" }), []);
    }
    if ((options as { all?: boolean }).all) return callback(null, list);
    const first = list[0];
    if (!first) return callback(Object.assign(new Error(`no address for ${hostname}`), { code: "ENOTFOUND" }), []);
    callback(null, first.address, first.family);
  });
}

export interface FetchedFile {
  bytes: Uint8Array;
  contentType: string | undefined;
  finalUrl: string;
}

/** Downloads a public http(s) URL, following up to five redirects, with a size cap and a timeout. */
export async function fetchPublicFile(rawUrl: string, maxBytes: number): Promise<FetchedFile> {
  let url = new URL(rawUrl);
  for (let hop = 0; hop <= MAX_REDIRECTS; hop += 1) {
    if (url.protocol !== "http:" && url.protocol !== "https:") throw new FileFetchError(`unsupported URL scheme ${url.protocol}`);
    const early = refusalReason(url.href);
    if (early) throw new FileFetchError(`refused to fetch ${url.href}: ${early}`);
    const response = await get(url);
    const status = response.statusCode ?? 0;
    if (status >= 300 && status < 400 && response.headers.location) {
      response.resume();
      url = new URL(response.headers.location, url);
      continue;
    }
    if (status < 200 || status >= 300) {
      response.resume();
      throw new FileFetchError(`fetching ${url.href} answered HTTP ${status}`);
    }
    const declared = Number(response.headers["content-length"] ?? "0");
    if (declared > maxBytes) {
      response.destroy();
      throw new FileFetchError(`the file at ${url.href} is larger than ${maxBytes} bytes`);
    }
    const bytes = await readCapped(response, maxBytes, url.href);
    return { bytes, contentType: response.headers["content-type"], finalUrl: url.href };
  }
  throw new FileFetchError(`too many redirects fetching ${rawUrl}`);
}

function get(url: URL): Promise<IncomingMessage> {
  const send = url.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const request = send(url, { method: "GET", lookup: guardedLookup, timeout: TIMEOUT_MS, headers: { "user-agent": "knowledge-ingestion-service" } }, resolve);
    request.on("timeout", () => request.destroy(new FileFetchError(`fetching ${url.href} timed out`)));
    request.on("error", (error: NodeJS.ErrnoException) => {
      if (error instanceof FileFetchError) return reject(error);
      // Refusals and unknown hosts are the caller's to fix; resets and the like may pass on retry.
      if (error.code === "EPRIVATE" || error.code === "ENOTFOUND") return reject(new FileFetchError(error.message));
      reject(error);
    });
    request.end();
  });
}

async function readCapped(response: IncomingMessage, maxBytes: number, label: string): Promise<Uint8Array> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) {
      response.destroy();
      throw new FileFetchError(`the file at ${label} is larger than ${maxBytes} bytes`);
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}
