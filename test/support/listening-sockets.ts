import { readdirSync, readFileSync, readlinkSync } from "node:fs";

export interface ListeningSocket {
  pid: number;
  address: string;
  port: number;
}

/**
 * The TCP sockets the given processes listen on, from Linux's /proc: each process's socket inodes
 * (/proc/<pid>/fd) matched against the LISTEN entries of /proc/net/tcp and /proc/net/tcp6.
 */
export function listeningSockets(pids: number[]): ListeningSocket[] {
  const listening = new Map<string, { address: string; port: number }>();
  for (const [file, decode] of [
    ["/proc/net/tcp", ipv4],
    ["/proc/net/tcp6", ipv6],
  ] as const) {
    for (const line of readFileSync(file, "utf8").trim().split("\n").slice(1)) {
      const fields = line.trim().split(/\s+/);
      const [local = "", state, inode = ""] = [fields[1], fields[3], fields[9]];
      if (state !== "0A") continue;
      const [hexAddress = "", hexPort = ""] = local.split(":");
      listening.set(inode, { address: decode(hexAddress), port: Number.parseInt(hexPort, 16) });
    }
  }
  const sockets: ListeningSocket[] = [];
  for (const pid of pids) {
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      let target: string;
      try {
        target = readlinkSync(`/proc/${pid}/fd/${fd}`);
      } catch {
        continue;
      }
      const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
      const socket = inode ? listening.get(inode) : undefined;
      if (socket) sockets.push({ pid, ...socket });
    }
  }
  return sockets;
}

export function isLoopback(address: string): boolean {
  return address.startsWith("127.") || address === "::1" || address.startsWith("::ffff:127.");
}

/** /proc writes an IPv4 address as one little-endian 32-bit word in hex. */
function ipv4(hex: string): string {
  return [6, 4, 2, 0].map((offset) => Number.parseInt(hex.slice(offset, offset + 2), 16)).join(".");
}

/** ... and an IPv6 address as four such words. Written uncompressed, except `::`, `::1` and IPv4-mapped ones. */
function ipv6(hex: string): string {
  const bytes = [0, 8, 16, 24].flatMap((word) => [6, 4, 2, 0].map((offset) => Number.parseInt(hex.slice(word + offset, word + offset + 2), 16)));
  const zeroPrefix = (length: number) => bytes.slice(0, length).every((byte) => byte === 0);
  if (zeroPrefix(16)) return "::";
  if (zeroPrefix(15) && bytes[15] === 1) return "::1";
  if (zeroPrefix(10) && bytes[10] === 0xff && bytes[11] === 0xff) return `::ffff:${bytes.slice(12).join(".")}`;
  return Array.from({ length: 8 }, (_, index) => ((bytes[index * 2]! << 8) | bytes[index * 2 + 1]!).toString(16)).join(":");
}
