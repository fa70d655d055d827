import * as z from "../../platform/zod.ts";
import { ALL_INDEXES, LIST_SORT_KEY, PARTITION_KEY, SORT_KEY, TTL_ATTRIBUTE } from "./table-schema.ts";

const STORAGE_ATTRIBUTES = new Set<string>([
  PARTITION_KEY,
  SORT_KEY,
  LIST_SORT_KEY,
  TTL_ATTRIBUTE,
  "entityType",
  ...ALL_INDEXES.map((index) => index.partitionKey),
]);

/** Thrown when a stored item is not the record its key says: a bug to fix, never a client's error. */
export class MalformedItemError extends Error {
  override name = "MalformedItemError";
}

/**
 * The record a stored item holds, without its key and index attributes, through its kind's schema;
 * a MalformedItemError otherwise, which the HTTP edge logs and answers as a 500 (the caller did
 * nothing wrong). Each repository passes its own schema, so a bundle carries only those it reads.
 */
export function recordFromItem<T>(kind: string, schema: z.ZodMiniType<T>, item: Record<string, unknown>): T {
  const attributes: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(item)) {
    if (!STORAGE_ATTRIBUTES.has(key)) attributes[key] = value;
  }
  const result = schema.safeParse(attributes);
  if (result.success) return result.data;
  const id = item.id ?? item.namespaceId ?? item.keyId;
  throw new MalformedItemError(`stored ${kind} ${String(id ?? "?")} is malformed: ${z.formatIssue(result.error.issues[0])}`);
}
