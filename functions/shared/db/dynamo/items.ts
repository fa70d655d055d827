import { ALL_INDEXES, LIST_SORT_KEY, PARTITION_KEY, SORT_KEY, TTL_ATTRIBUTE } from "./table-schema.ts";

const STORAGE_ATTRIBUTES = new Set<string>([
  PARTITION_KEY,
  SORT_KEY,
  LIST_SORT_KEY,
  TTL_ATTRIBUTE,
  "entityType",
  ...ALL_INDEXES.map((index) => index.partitionKey),
]);

/** Removes key and index attributes, leaving the entity record. */
export function toRecord<T>(item: Record<string, unknown>): T {
  const record: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(item)) {
    if (!STORAGE_ATTRIBUTES.has(key)) record[key] = value;
  }
  return record as T;
}
