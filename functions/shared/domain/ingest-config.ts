import * as z from "../platform/zod.ts";

export const LANGUAGE_CODES = [
  "af", "am", "ar", "bg", "bn", "ca", "cs", "cy", "da", "de", "en", "es", "et", "fa", "fi", "fr", "ga", "gl",
  "he", "hi", "hr", "hu", "id", "is", "it", "jp", "kr", "lt", "lv", "mk", "ms", "mt", "ne", "nl", "no", "pl",
  "pt", "ro", "ru", "sk", "sl", "sr", "sv", "sw", "ta", "te", "th", "tl", "tr", "uk", "ur", "vi", "zh", "zu",
] as const;

/**
 * Chunk sizes are capped so a chunk's text fits the vector store's per-vector metadata (S3 Vectors
 * allows 40 KB; 8,192 characters stay under it even at 4 bytes per character).
 */
export const MAX_CHUNK_CHARACTERS = 8192;
export const MIN_CHUNK_CHARACTERS = 32;
export const DEFAULT_CHUNK_SIZE = 2048;
/** User metadata is copied onto every vector; S3 Vectors allows 2 KB of filterable metadata in all. */
export const MAX_METADATA_BYTES = 1024;

const metadataValue = z.union([
  z.string().check(z.maxLength(256)),
  // z.number() refuses Infinity and NaN by itself (classic zod's `.finite()` was a no-op).
  z.number(),
  z.boolean(),
  z.array(z.string().check(z.maxLength(256))).check(z.maxLength(16)),
]);

export const chunkMetadata = z
  .record(
    z.string().check(z.regex(/^[A-Za-z0-9_.-]{1,64}$/, "metadata keys are 1 to 64 letters, digits, '_', '.' or '-'")),
    metadataValue,
  )
  .check(
    z.refine((value) => Buffer.byteLength(JSON.stringify(value)) <= MAX_METADATA_BYTES, {
      message: `metadata must serialise to at most ${MAX_METADATA_BYTES} bytes of JSON`,
    }),
    z.refine((value) => Object.keys(value).every((key) => !RESERVED_METADATA_KEYS.has(key)), {
      message: "metadata keys documentId, namespaceId, tenantId, ingestJobId, sequence_number, page_number, sheet, slide, repeated_header, filename and text are reserved",
    }),
  );

export const RESERVED_METADATA_KEYS = new Set([
  "documentId",
  "namespaceId",
  "tenantId",
  "ingestJobId",
  "sequence_number",
  "page_number",
  "sheet",
  "slide",
  "repeated_header",
  "filename",
  "text",
]);

const chunkLength = z.number().check(z.int(), z.gte(MIN_CHUNK_CHARACTERS), z.lte(MAX_CHUNK_CHARACTERS));

/** Every Config field of the spec: validated, stored and returned as given. */
export const ingestConfig = z
  .object({
    chunkSize: z.optional(chunkLength),
    chunkOverlap: z.optional(z.number().check(z.int(), z.gte(0), z.lte(MAX_CHUNK_CHARACTERS))),
    maxChunkSize: z.optional(chunkLength),
    delimiter: z.optional(z.string().check(z.minLength(1), z.maxLength(64))),
    metadata: z.optional(chunkMetadata),
    languageCode: z.optional(z.enum(LANGUAGE_CODES)),
    mode: z.optional(z.enum(["fast", "balanced", "accurate"])),
    disableImageExtraction: z.optional(z.boolean()),
    disableImageCaptions: z.optional(z.boolean()),
    chartUnderstanding: z.optional(z.boolean()),
    keepPageheaderInOutput: z.optional(z.boolean()),
    keepPagefooterInOutput: z.optional(z.boolean()),
    forceOcr: z.optional(z.boolean()),
    disableOcrMath: z.optional(z.boolean()),
    useLlm: z.optional(z.boolean()),
    chunkingStrategy: z.optional(z.enum(["basic", "by_title"])),
    strategy: z.optional(z.enum(["auto", "fast", "hi_res", "ocr_only"])),
  })
  .check(
    z.superRefine((value, context) => {
      const size = value.chunkSize ?? DEFAULT_CHUNK_SIZE;
      if (value.chunkOverlap !== undefined && value.chunkOverlap * 2 >= size) {
        context.addIssue({ code: "custom", path: ["chunkOverlap"], message: `must be less than half of chunkSize (${size})` });
      }
    }),
  );

export type IngestConfig = z.output<typeof ingestConfig>;

/** The effective chunking settings: the job's config overridden field by field by the item's. */
export function mergeConfigs(jobConfig: IngestConfig | null, itemConfig: IngestConfig | null): IngestConfig {
  const merged: IngestConfig = { ...jobConfig, ...itemConfig };
  if (jobConfig?.metadata || itemConfig?.metadata) merged.metadata = { ...jobConfig?.metadata, ...itemConfig?.metadata };
  return merged;
}
