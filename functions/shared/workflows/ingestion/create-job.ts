import { invalidRequest } from "../../domain/errors.ts";
import { largestUploadLimit, resolveFileType, uploadLimit } from "../../domain/catalogs/file-types.ts";
import { nowIso } from "../../platform/time.ts";
import { insertJobWithPayload, removeJobWithPayload } from "./stored-payloads.ts";
import { type CreateIngestJobInput, type IngestJobRecord, type IngestPayload, normalisePayload, payloadItems } from "../../domain/ingest-job.ts";
import type { NamespaceRecord } from "../../domain/namespace.ts";
import { enqueue } from "../../queue/send.ts";
import { headObject } from "../../storage/objects.ts";
import { uploadPrefix } from "../../storage/object-keys.ts";
import { refusalReason } from "../../fetch/public-url.ts";
import { mapLimited } from "../../platform/concurrency.ts";
import { conflict } from "../../domain/errors.ts";
import { vectorStore } from "../../vector-store/index.ts";
import { assertRoomForPartition, PartitionCeilingError } from "../../vector-store/quota.ts";
import { assertVectorMetadataFits } from "./vector-metadata.ts";

/**
 * Creates a QUEUED ingest job and queues its run. Everything that can be known now is checked now
 * (managed files exist under this namespace, URLs are not private), so the caller hears about it
 * at once rather than through a FAILED job later.
 */
export async function createIngestJob(
  namespace: NamespaceRecord,
  tenantId: string | null,
  input: CreateIngestJobInput,
): Promise<{ job: IngestJobRecord; payload: IngestPayload }> {
  await assertRoomForPartition((await vectorStore()), { namespaceId: namespace.id, tenantId }).catch((error: unknown) => {
    throw error instanceof PartitionCeilingError ? conflict(error.message) : error;
  });
  const payload = normalisePayload(input.payload);
  const items = payloadItems(payload);
  await mapLimited(items, 16, async (item, index) => {
    const at = payload.type === "BATCH" ? `payload.items.${index}` : "payload";
    assertVectorMetadataFits(item, input.config ?? null, { namespaceId: namespace.id, tenantId }, at);
    if (item.type === "MANAGED_FILE") await assertManagedFile(namespace.id, item.key, at);
    if (item.type === "FILE") {
      const reason = refusalReason(item.fileUrl);
      if (reason) throw invalidRequest(`${at}.fileUrl: ${reason}`);
    }
  });
  const job = await insertJobWithPayload({
    namespaceId: namespace.id,
    tenantId,
    name: input.name || null,
    externalId: input.externalId ?? null,
    payload,
    config: input.config ?? null,
    documentCount: items.length,
    now: nowIso(),
  });
  try {
    await enqueue("ingest", { kind: "job", jobId: job.id, runId: job.runId });
  } catch (error) {
    // Without its message the job would sit QUEUED forever: undo it and let the caller retry.
    await removeJobWithPayload(job);
    throw error;
  }
  return { job, payload };
}

async function assertManagedFile(namespaceId: string, key: string, at: string): Promise<void> {
  if (!key.startsWith(uploadPrefix(namespaceId))) {
    throw invalidRequest(`${at}.key: file not found in this namespace (use a key returned by the uploads endpoint)`);
  }
  const head = await headObject(key);
  if (!head) throw invalidRequest(`${at}.key: file not found; upload it with the presigned URL first`);
  // The worker judges the type again with the document's name; here the upload's own name decides.
  const type = resolveFileType({ fileName: key, contentType: head.contentType });
  const maxBytes = type ? uploadLimit(type) : largestUploadLimit();
  if (head.size > maxBytes) throw invalidRequest(`${at}.key: the file is larger than ${maxBytes} bytes`);
}
