import * as z from "../../platform/zod.ts";
import { conversationInput } from "../chat.ts";
import { hostingSlug } from "../hosting.ts";
import { idParam } from "../params.ts";
import type { MetadataValue } from "../metadata-filter.ts";

/**
 * What a visitor of a hosted page may ask and is shown. Visitors hold no key: they search the
 * namespace's untenanted records only, with the hosting's own topK and reranker, and see each hit's
 * text, score, document name and, when the hosting names a metadata path, the citation found there.
 */
export const hostedSearchBody = z.object({
  query: z.string().check(z.trim(), z.minLength(1), z.maxLength(1000)),
});

/** A visitor's conversation with the chat tab: shorter than callers may send, since anyone can. */
export const hostedChatBody = z.object({
  messages: conversationInput({ messages: 20, messageLength: 4000 }),
});

export const hostedSlugPath = z.object({ slug: hostingSlug });

/** A document's source file, as a page's search tab links to it. */
export const hostedDocumentPath = z.object({ slug: hostingSlug, documentId: idParam("document") });

export interface HostedHit {
  id: string;
  text: string;
  score: number;
  rerankScore?: number;
  documentName: string | null;
  /** The value at the hosting's `citationMetadataPath` in the chunk's metadata, when there is one. */
  citation: string | null;
}

/** A stretch of a hit's text, in UTF-16 offsets (what `String.prototype.slice` takes). */
export interface TextRange {
  start: number;
  end: number;
}

/**
 * A hit as the search tab shows it: the chat's cited hit, plus what a reader needs to judge it at a
 * glance. The page draws `snippet` of `text` with `highlights` marked, and the whole text on
 * "Show more"; it groups hits by `documentId`.
 */
export interface HostedSearchHit extends HostedHit {
  documentId: string | null;
  /** Where in the document the chunk starts, when its format has pages, slides or sheets. */
  location: { page?: number; slide?: number; sheet?: string } | null;
  snippet: TextRange;
  /** The query's words in `text`, in order. */
  highlights: TextRange[];
  /** Whether the page offers the uploaded file (`GET /hosted/{slug}/documents/{documentId}/file`); only when there is no citation. */
  sourceFile: boolean;
}

/** Where a chunk starts, from the keys the worker adds to its metadata. */
export function chunkLocation(metadata: Record<string, MetadataValue> | undefined): HostedSearchHit["location"] {
  if (!metadata) return null;
  const location: NonNullable<HostedSearchHit["location"]> = {};
  if (typeof metadata.page_number === "number") location.page = metadata.page_number;
  if (typeof metadata.slide === "number") location.slide = metadata.slide;
  if (typeof metadata.sheet === "string") location.sheet = metadata.sheet;
  return Object.keys(location).length > 0 ? location : null;
}

/** A search result as a page shows it (and chat cites it): its document's name, and the citation at the hosting's path. */
export function citedHit(
  result: { id: string; text: string; score: number; rerankScore?: number; metadata?: Record<string, MetadataValue> },
  citationMetadataPath: string | null,
): HostedHit {
  return {
    id: result.id,
    text: result.text,
    score: result.score,
    ...(result.rerankScore !== undefined ? { rerankScore: result.rerankScore } : {}),
    documentName: typeof result.metadata?.filename === "string" ? result.metadata.filename : null,
    citation: citationAt(result.metadata, citationMetadataPath),
  };
}

/** The value at a dotted path (`source.url`) of chunk metadata, as text; null when absent or not a scalar. */
export function citationAt(metadata: Record<string, MetadataValue> | undefined, path: string | null): string | null {
  if (!metadata || !path) return null;
  // Stored metadata is flat; nested caller metadata arrives with dotted keys, so try the whole path first.
  let value: unknown = Object.hasOwn(metadata, path) ? metadata[path] : undefined;
  if (value === undefined) {
    value = path.split(".").reduce<unknown>((node, part) => (node !== null && typeof node === "object" && Object.hasOwn(node, part) ? (node as Record<string, unknown>)[part] : undefined), metadata);
  }
  if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") return String(value);
  return null;
}
