import * as z from "../platform/zod.ts";

/**
 * Work messages. Each names the record to act on and nothing else: workers always re-read state, so
 * a duplicate or stale message can only repeat or skip work, never undo it.
 */
export const ingestMessage = z.discriminatedUnion("kind", [
  /** Create the job's documents and fan out their processing. */
  z.object({ kind: z.literal("job"), jobId: z.string(), runId: z.string() }),
  /** Process one document, starting or resuming at its checkpoint. */
  z.object({ kind: z.literal("document"), documentId: z.string(), runId: z.string() }),
]);
export type IngestMessage = z.output<typeof ingestMessage>;

export const deleteMessage = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("namespace"), namespaceId: z.string() }),
  z.object({ kind: z.literal("job"), jobId: z.string() }),
  z.object({ kind: z.literal("document"), documentId: z.string() }),
]);
export type DeleteMessage = z.output<typeof deleteMessage>;

/**
 * A sign-in link asked for on a protected hosted page, for any address: whether the address may
 * visit, and whether a link goes out, is decided by the mail worker, so the page answers every
 * address with the same work and time. `pageUrl` is the page's URL as API Gateway reported it.
 */
export const mailMessage = z.object({
  kind: z.literal("sign-in"),
  namespaceId: z.string(),
  slug: z.string(),
  email: z.string(),
  pageUrl: z.string(),
});
export type MailMessage = z.output<typeof mailMessage>;
