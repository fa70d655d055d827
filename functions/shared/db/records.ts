import type { DocumentRecord } from "../domain/document.ts";
import type { IngestJobRecord } from "../domain/ingest-job.ts";
import { documentRecordSchema, ingestJobRecordSchema } from "../domain/records.ts";
import * as z from "../platform/zod.ts";
import { recordFromItem } from "./dynamo/items.ts";

export function documentFromItem(item: Record<string, unknown>): DocumentRecord {
  return recordFromItem("document", documentRecordSchema, item);
}

export function jobFromItem(item: Record<string, unknown>): IngestJobRecord {
  return recordFromItem("ingest job", ingestJobRecordSchema, item);
}

const partialSchemas = new Map<string, z.ZodMiniType<unknown>>();

/**
 * Only `fields` of a document, as a projection read them; each whole attribute is checked as in a
 * whole record. A dotted field (`source.type`) reads part of a map, which the record's schema of
 * the whole map would refuse, so it passes unchecked (the schema is loose). Typed as the whole
 * record because the caller asked for the subset and reads only that.
 */
export function documentFieldsFromItem(fields: readonly string[], item: Record<string, unknown>): DocumentRecord {
  const key = fields.join(",");
  let schema = partialSchemas.get(key);
  if (!schema) {
    const whole = fields.filter((field) => !field.includes("."));
    const mask = Object.fromEntries(whole.map((field) => [field, true])) as Partial<Record<keyof typeof documentRecordSchema.shape, true>>;
    schema = z.pick(documentRecordSchema, mask);
    partialSchemas.set(key, schema);
  }
  return recordFromItem("document", schema, item) as DocumentRecord;
}
