import type { IncomingMessage, ServerResponse } from "node:http";
import { escapeXml, upstreamCall } from "./s3-upstream.ts";

/**
 * ListObjectsV2 as S3 pages it. fauxqs sorts keys with `localeCompare` but resumes after a
 * continuation token with a binary `<=`, so past 1,000 keys that mix cases, `-` and `_` (every id
 * the service makes) its pages repeat some keys and skip others: a keyword index of 3,000
 * documents loaded only 2,032 segments. S3 lists in UTF-8 binary order and each key exactly once;
 * the gateway asks fauxqs for the whole prefix in one page and pages it that way itself.
 */

/** S3 never returns more than this per page, whatever `max-keys` asks. */
const MAX_KEYS_PER_PAGE = 1000;

export function isPagedListing(req: IncomingMessage, url: URL): boolean {
  const bucketOnly = /^\/[^/]+\/?$/.test(url.pathname);
  return req.method === "GET" && bucketOnly && url.searchParams.get("list-type") === "2" && !url.searchParams.has("delimiter");
}

function unescapeXml(text: string): string {
  return text
    .replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code)))
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, "&");
}

export async function servePagedListing(req: IncomingMessage, res: ServerResponse, upstream: URL, url: URL): Promise<void> {
  const prefix = url.searchParams.get("prefix") ?? "";
  const everything = new URLSearchParams({ "list-type": "2", prefix, "max-keys": String(2 ** 31 - 1) });
  const headers = Object.fromEntries(Object.entries(req.headers).flatMap(([name, value]) => (typeof value === "string" ? [[name, value]] : [])));
  const answer = await upstreamCall(upstream, "GET", `${url.pathname}?${everything}`, headers);
  if (answer.status !== 200) {
    res.writeHead(answer.status, { "content-type": String(answer.headers["content-type"] ?? "application/xml") });
    res.end(answer.body);
    return;
  }
  const entries = [...answer.body.toString("utf8").matchAll(/<Contents>[\s\S]*?<\/Contents>/g)].map(([block]) => {
    const key = unescapeXml(/<Key>([\s\S]*?)<\/Key>/.exec(block)?.[1] ?? "");
    return { key, bytes: Buffer.from(key, "utf8"), block };
  });
  entries.sort((a, b) => Buffer.compare(a.bytes, b.bytes));

  const token = url.searchParams.get("continuation-token");
  const startAfter = url.searchParams.get("start-after") ?? "";
  const resumeAfter = Buffer.from(token !== null ? Buffer.from(token, "base64url").toString("utf8") : startAfter, "utf8");
  const requested = Number(url.searchParams.get("max-keys") ?? MAX_KEYS_PER_PAGE);
  const maxKeys = Math.min(Number.isInteger(requested) && requested >= 0 ? requested : MAX_KEYS_PER_PAGE, MAX_KEYS_PER_PAGE);
  const remaining = resumeAfter.length === 0 ? entries : entries.filter((entry) => Buffer.compare(entry.bytes, resumeAfter) > 0);
  const page = remaining.slice(0, maxKeys);
  const truncated = remaining.length > page.length;
  const bucket = url.pathname.replace(/^\/|\/$/g, "");
  const parts = [
    `<?xml version="1.0" encoding="UTF-8"?>`,
    `<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">`,
    `<Name>${escapeXml(bucket)}</Name>`,
    `<Prefix>${escapeXml(prefix)}</Prefix>`,
    `<KeyCount>${page.length}</KeyCount>`,
    `<MaxKeys>${maxKeys}</MaxKeys>`,
    `<IsTruncated>${truncated}</IsTruncated>`,
    ...(token !== null ? [`<ContinuationToken>${escapeXml(token)}</ContinuationToken>`] : []),
    ...(truncated ? [`<NextContinuationToken>${Buffer.from(page[page.length - 1]!.key, "utf8").toString("base64url")}</NextContinuationToken>`] : []),
    ...(startAfter ? [`<StartAfter>${escapeXml(startAfter)}</StartAfter>`] : []),
    ...page.map((entry) => entry.block),
    `</ListBucketResult>`,
  ];
  res.writeHead(200, { "content-type": "application/xml" });
  res.end(parts.join("\n"));
}
