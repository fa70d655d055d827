import { getDocuments, uploadIsReferenced } from "../../db/documents.ts";
import { getIngestJob } from "../../db/ingest-jobs.ts";
import { getNamespace } from "../../db/namespaces.ts";
import type { DocumentRecord } from "../../domain/document.ts";
import { QUEUED_STATUSES, WORKING_STATUSES } from "../../domain/statuses.ts";
import { deleteObjects, listObjectPages, type StoredObject } from "../../storage/objects.ts";
import { ageMs, outOfTime, type ReconcileContext } from "./context.ts";
import { addFinding, type ObjectCounts } from "./report.ts";

export const NAMESPACES_ROOT = "namespaces/";

/** What an object key says about its owner; the layouts of `storage/object-keys.ts`. */
export type ObjectOwner =
  | { area: "upload"; namespaceId: string }
  | { area: "document"; namespaceId: string; documentId: string; runId: string | null }
  | { area: "keyword"; namespaceId: string; tenantId: string | null; documentId: string; runId: string }
  | { area: "job"; namespaceId: string; jobId: string }
  | { area: "unknown"; namespaceId: string };

type OrphanReason = Exclude<keyof ObjectCounts, "scanned" | "deleted" | "unrecognised">;

export function ownerOf(key: string): ObjectOwner | null {
  const parts = key.split("/");
  if (parts[0] !== "namespaces" || !parts[1]) return null;
  const namespaceId = parts[1];
  const [area, first, second, third, ...rest] = parts.slice(2);
  if (area === "uploads" && first) return { area: "upload", namespaceId };
  if (area === "documents" && first && second) {
    // `documents/<id>/runs/<runId>/chunks.json` is a run's staging area; the rest is the document's.
    const runId = second === "runs" && third && rest.length > 0 ? third : null;
    return { area: "document", namespaceId, documentId: first, runId };
  }
  if (area === "jobs" && first && second === "payload.json" && third === undefined) return { area: "job", namespaceId, jobId: first };
  // `keyword/<_ | t-<tenant>>/<documentId>/<runId>.json`: the home-made keyword index's segments,
  // written before keyword search moved into the vector store; nothing reads or writes them now.
  if (area === "keyword" && first && second && third?.endsWith(".json") && rest.length === 0) {
    const tenantId = first === "_" ? null : first.startsWith("t-") ? first.slice(2) : undefined;
    if (tenantId !== undefined) return { area: "keyword", namespaceId, tenantId, documentId: second, runId: third.slice(0, -".json".length) };
  }
  return { area: "unknown", namespaceId };
}

/** Facts about owners, read after the page of keys they judge (so never older than the listing). */
interface Owners {
  namespaceExists(namespaceId: string): Promise<boolean>;
  documents: Map<string, DocumentRecord>;
  jobNamespace(jobId: string): Promise<string | null>;
  uploadReferenced(key: string): Promise<boolean>;
}

/**
 * Why an object is an orphan, or null when it has an owner or may still get one. Objects of a
 * namespace that is gone go at once: a namespace record is written before anything under its prefix
 * and removed after everything. Others wait out a grace period, because their owner is written just
 * after them (a job's payload, a document's source text), or their run may still be in flight.
 */
export async function orphanReason(object: StoredObject, owner: ObjectOwner, owners: Owners, context: ReconcileContext): Promise<OrphanReason | null> {
  if (!(await owners.namespaceExists(owner.namespaceId))) return "namespaceGone";
  const age = ageMs(context, object.lastModified);
  switch (owner.area) {
    case "upload":
      return age > context.uploadGraceMs && !(await owners.uploadReferenced(object.key)) ? "unreferencedUpload" : null;
    case "job": {
      if (age <= context.graceMs) return null;
      return (await owners.jobNamespace(owner.jobId)) === owner.namespaceId ? null : "jobGone";
    }
    case "document": {
      if (age <= context.graceMs) return null;
      const document = owners.documents.get(owner.documentId);
      if (!document || document.namespaceId !== owner.namespaceId) return "documentGone";
      return owner.runId !== null && !stagingInUse(document, owner.runId, object.key) ? "staleStaging" : null;
    }
    case "keyword":
      return "staleKeywordSegment";
    case "unknown":
      return null;
  }
}

function runInProgress(document: DocumentRecord, runId: string): boolean {
  return document.checkpoint?.runId === runId || (document.runId === runId && [...QUEUED_STATUSES, ...WORKING_STATUSES].includes(document.status));
}

/**
 * A staging file serves only the run in progress (a finished run's chunks are published, a stale
 * run's are dead), and once the run has a checkpoint only the attempt it names: deliveries that
 * lost the race to it staged files nobody reads.
 */
function stagingInUse(document: DocumentRecord, runId: string, key: string): boolean {
  if (!runInProgress(document, runId)) return false;
  const chosen = document.checkpoint?.runId === runId ? document.checkpoint.stagingKey : undefined;
  return chosen === undefined || chosen === key;
}

/** Removes every object under `namespaces/` whose owner record is gone (see `orphanReason`). */
export async function reconcileObjects(context: ReconcileContext): Promise<void> {
  const namespaces = new Map<string, boolean>();
  const namespaceExists = async (namespaceId: string) => {
    let exists = namespaces.get(namespaceId);
    if (exists === undefined) {
      exists = (await getNamespace(namespaceId)) !== null;
      namespaces.set(namespaceId, exists);
    }
    return exists;
  };
  for await (const page of listObjectPages(NAMESPACES_ROOT)) {
    if (outOfTime(context)) return;
    await reconcileObjectPage(page, namespaceExists, context);
  }
}

async function reconcileObjectPage(
  page: StoredObject[],
  namespaceExists: (namespaceId: string) => Promise<boolean>,
  context: ReconcileContext,
): Promise<void> {
  const counts = context.report.objects;
  const owned = page.map((object) => ({ object, owner: ownerOf(object.key) }));
  const documentIds = owned.flatMap(({ owner }) => (owner && (owner.area === "document" || owner.area === "keyword") ? [owner.documentId] : []));
  const owners: Owners = {
    namespaceExists,
    documents: await getDocuments(documentIds),
    jobNamespace: async (jobId) => (await getIngestJob(jobId))?.namespaceId ?? null,
    uploadReferenced: uploadIsReferenced,
  };
  const orphans: string[] = [];
  for (const { object, owner } of owned) {
    if (!owner) continue;
    counts.scanned += 1;
    const reason = await orphanReason(object, owner, owners, context);
    if (owner.area === "unknown" && reason === null) {
      counts.unrecognised += 1;
      addFinding(context.report, { kind: "object", id: object.key, action: "report", reason: "unrecognised key" });
    }
    if (reason === null) continue;
    counts[reason] += 1;
    orphans.push(object.key);
    addFinding(context.report, { kind: "object", id: object.key, action: "delete", reason });
  }
  counts.deleted += orphans.length;
  if (!context.dryRun && orphans.length > 0) await deleteObjects(orphans);
}
