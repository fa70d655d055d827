import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import { isIP } from "node:net";
import { networkInterfaces } from "node:os";
import { config } from "../env.ts";

/** A problem with a caller-supplied URL: the message is safe to show and retrying will not help. */
export class FileFetchError extends Error {}

const MAX_REDIRECTS = 5;
const TIMEOUT_MS = 30_000;

interface Address {
  family: 4 | 6;
  value: bigint;
}

interface Network extends Address {
  prefix: number;
}

const BITS = { 4: 32, 6: 128 } as const;

function parseV4(text: string): bigint {
  return text.split(".").reduce((value, part) => (value << 8n) | BigInt(Number(part)), 0n);
}

/** Expands `::` and a dotted IPv4 tail; the text has already passed `isIP`. */
function parseV6(text: string): bigint {
  let hex = text;
  const tailStart = text.lastIndexOf(":") + 1;
  if (text.includes(".", tailStart)) {
    const v4 = parseV4(text.slice(tailStart));
    hex = `${text.slice(0, tailStart)}${(v4 >> 16n).toString(16)}:${(v4 & 0xffffn).toString(16)}`;
  }
  const [left = "", right] = hex.split("::");
  const head = left === "" ? [] : left.split(":");
  const tail = right === undefined || right === "" ? [] : right.split(":");
  const groups = right === undefined ? head : [...head, ...Array<string>(8 - head.length - tail.length).fill("0"), ...tail];
  return groups.reduce((value, group) => (value << 16n) | BigInt(Number.parseInt(group, 16)), 0n);
}

/** An IP address in any textual form Node accepts (brackets and an IPv6 zone are ignored), or null. */
export function parseAddress(text: string): Address | null {
  const bare = text.replace(/^\[(.*)\]$/, "$1").replace(/%.*$/, "");
  const family = isIP(bare);
  if (family === 4) return { family: 4, value: parseV4(bare) };
  if (family === 6) return { family: 6, value: parseV6(bare) };
  return null;
}

function parseNetwork(text: string): Network {
  const [base = "", prefixText] = text.trim().split("/");
  const address = parseAddress(base);
  const prefix = prefixText === undefined ? (address ? BITS[address.family] : 0) : Number(prefixText);
  if (!address || !Number.isInteger(prefix) || prefix < 0 || prefix > BITS[address.family] || (prefixText !== undefined && !/^\d+$/.test(prefixText))) {
    throw new Error(`"${text}" is not an IP address or CIDR network`);
  }
  return { ...address, prefix };
}

function contains(network: Network, address: Address): boolean {
  if (network.family !== address.family) return false;
  const shift = BigInt(BITS[network.family] - network.prefix);
  return network.value >> shift === address.value >> shift;
}

const networks = (list: string[]) => list.map(parseNetwork);

/**
 * IPv4 addresses that are not public unicast: IANA's special-purpose ranges that are not globally
 * reachable (this network, private, carrier-grade NAT, loopback, link-local with the cloud metadata
 * service at 169.254.169.254, IETF protocol assignments, documentation, the deprecated 6to4 relay,
 * benchmarking), multicast, and the reserved block with the broadcast address.
 */
const NON_PUBLIC_V4 = networks([
  "0.0.0.0/8",
  "10.0.0.0/8",
  "100.64.0.0/10",
  "127.0.0.0/8",
  "169.254.0.0/16",
  "172.16.0.0/12",
  "192.0.0.0/24",
  "192.0.2.0/24",
  "192.88.99.0/24",
  "192.168.0.0/16",
  "198.18.0.0/15",
  "198.51.100.0/24",
  "203.0.113.0/24",
  "224.0.0.0/4",
  "240.0.0.0/4",
]);

/**
 * IPv6 is checked the other way round: only global unicast (2000::/3) can be public, which leaves
 * out unspecified, loopback, IPv4-compatible, local-use NAT64, discard, unique-local, link-local,
 * site-local and multicast at once. Inside it, the IETF protocol block (2001::/23, Teredo excepted:
 * it is checked through the address it embeds) and the documentation ranges are refused.
 */
const GLOBAL_UNICAST_V6 = parseNetwork("2000::/3");
const NON_PUBLIC_GLOBAL_V6 = networks(["2001::/23", "2001:db8::/32", "3fff::/20"]);

const V4_MASK = 0xffffffffn;

/**
 * IPv6 forms that carry an IPv4 address the packets end up at: IPv4-mapped (::ffff:a.b.c.d),
 * IPv4-translated (::ffff:0:a.b.c.d), NAT64 (64:ff9b::a.b.c.d), 6to4 (2002:aabb:ccdd::) and Teredo
 * (server in bits 32-63, client inverted in the last 32). Each embedded address must pass the IPv4
 * check itself, so `::ffff:127.0.0.1` is refused and `::ffff:8.8.8.8` is not.
 */
const EMBEDDING_V4: { network: Network; embedded: (value: bigint) => bigint[] }[] = [
  { network: parseNetwork("::ffff:0:0/96"), embedded: (value) => [value & V4_MASK] },
  { network: parseNetwork("::ffff:0:0:0/96"), embedded: (value) => [value & V4_MASK] },
  { network: parseNetwork("64:ff9b::/96"), embedded: (value) => [value & V4_MASK] },
  { network: parseNetwork("2002::/16"), embedded: (value) => [(value >> 80n) & V4_MASK] },
  { network: parseNetwork("2001::/32"), embedded: (value) => [(value >> 64n) & V4_MASK, ~value & V4_MASK] },
];

/** The guard's settings, read on use so tests and the local stack can change them. */
interface GuardSettings {
  allowed: Network[];
  ownAddresses: Address[];
}

/** This machine's interface addresses: a service bound to all interfaces answers on each of them. */
function ownAddresses(): Address[] {
  return Object.values(networkInterfaces())
    .flatMap((entries) => entries ?? [])
    .map((entry) => parseAddress(entry.address))
    .filter((address): address is Address => address !== null);
}

function guardSettings(): GuardSettings {
  return { allowed: networks(config.fileUrlAllowedNetworks()), ownAddresses: ownAddresses() };
}

const THIS_MACHINE = "this machine";
const NON_PUBLIC = "a private, loopback, link-local or reserved address";

function refuseAddress(address: Address, settings: GuardSettings): string | null {
  if (settings.ownAddresses.some((own) => own.family === address.family && own.value === address.value)) return THIS_MACHINE;
  // An IPv6 form carrying an IPv4 address is judged by that address alone, allowed networks included.
  const embedding = address.family === 6 ? EMBEDDING_V4.find(({ network }) => contains(network, address)) : undefined;
  if (embedding) {
    for (const value of embedding.embedded(address.value)) {
      const reason = refuseAddress({ family: 4, value }, settings);
      if (reason) return reason;
    }
    return null;
  }
  if (settings.allowed.some((network) => contains(network, address))) return null;
  if (address.family === 4) return NON_PUBLIC_V4.some((network) => contains(network, address)) ? NON_PUBLIC : null;
  if (!contains(GLOBAL_UNICAST_V6, address)) return NON_PUBLIC;
  return NON_PUBLIC_GLOBAL_V6.some((network) => contains(network, address)) ? NON_PUBLIC : null;
}

/**
 * What a FILE payload must not reach at this address ("this machine", "a private ... address"), or
 * null when it may. Addresses inside `FILE_URL_ALLOWED_NETWORKS` are allowed; this machine's own
 * addresses never are.
 */
export function addressRefusal(text: string, settings: GuardSettings = guardSettings()): string | null {
  if (config.allowPrivateFileUrls()) return null;
  const address = parseAddress(text);
  if (!address) return NON_PUBLIC;
  return refuseAddress(address, settings);
}

/** `localhost`, its subdomains, with or without the trailing dot of a fully qualified name. */
function isLocalhostName(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.+$/, "");
  return name === "localhost" || name.endsWith(".localhost");
}

/**
 * Refusal known from the URL alone: its host is a literal address that may not be reached, or a
 * localhost name. Names are resolved only at connection time (`guardedLookup`).
 */
export function refusalReason(rawUrl: string): string | null {
  if (config.allowPrivateFileUrls()) return null;
  const host = new URL(rawUrl).hostname;
  const refused = isLocalhostName(host) ? THIS_MACHINE : parseAddress(host) ? addressRefusal(host) : null;
  return refused && `the URL points at ${refused}`;
}

/**
 * Resolves names itself and refuses private addresses at connection time, so a name that resolves
 * to a public address when checked and a private one when used (DNS rebinding) is still refused.
 * Every address of the answer must pass: the connection may use any of them.
 */
export function guardedLookup(
  hostname: string,
  options: object,
  callback: (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
): void {
  const refuse = (reason: string) =>
    callback(Object.assign(new Error(`refused to connect to ${hostname}: ${reason}`), { code: "EPRIVATE" }), []);
  if (!config.allowPrivateFileUrls() && isLocalhostName(hostname)) return refuse(THIS_MACHINE);
  dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, []);
    const list = addresses as LookupAddress[];
    const settings = guardSettings();
    for (const entry of list) {
      const refused = addressRefusal(entry.address, settings);
      if (refused) return refuse(`it resolves to ${entry.address}, ${refused}`);
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
      url = redirectTarget(response.headers.location, url);
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

function redirectTarget(location: string, from: URL): URL {
  try {
    return new URL(location, from);
  } catch {
    throw new FileFetchError(`fetching ${from.href} redirected to an invalid URL`);
  }
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
