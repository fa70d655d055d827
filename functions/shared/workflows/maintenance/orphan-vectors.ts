import { getDocuments } from "../../db/documents.ts";
import { getNamespace } from "../../db/namespaces.ts";
import type { DocumentRecord } from "../../domain/document.ts";
import type { NamespaceRecord } from "../../domain/namespace.ts";
import { parseVectorKey } from "../../domain/chunks.ts";
import { vectorStore } from "../../vector-store/index.ts";
import { outOfTime, type ReconcileContext } from "./context.ts";
import { addFinding } from "./report.ts";
import { partitionOf } from "../../domain/partitions.ts";
import { type VectorPartition } from "../../domain/partitions.ts";

type OrphanReason = "documentGone" | "wrongPartition" | "staleRun" | "beyondGeneration" | "malformed";

/**
 * The runs whose vectors a document may hold, with their chunk counts: the searchable generation,
 * a retired one whose clean-up is pending, and the run being embedded.
 */
function liveRuns(document: DocumentRecord): Map<string, number> {
  const runs = new Map<string, number>();
  const keep = (runId: string, totalChunks: number) => runs.set(runId, Math.max(totalChunks, runs.get(runId) ?? 0));
  if (document.generation) keep(document.generation.runId, document.generation.totalChunks);
  if (document.retiredGeneration) keep(document.retiredGeneration.runId, document.retiredGeneration.totalChunks);
  if (document.checkpoint) keep(document.checkpoint.runId, document.checkpoint.totalChunks);
  return runs;
}

/**
 * Why a vector key is an orphan, or null when its document still needs it. No grace period is
 * needed: a run's vectors are written only after the document's checkpoint names that run, and the
 * document is read after the key was listed, so a key that no live run claims never will again
 * (run ids are never reused, deleted documents never return).
 */
export function vectorOrphanReason(key: string, document: DocumentRecord | undefined, partition: VectorPartition): OrphanReason | null {
  const parsed = parseVectorKey(key);
  if (!parsed) return "malformed";
  if (!document) return "documentGone";
  if (document.namespaceId !== partition.namespaceId || document.tenantId !== partition.tenantId) return "wrongPartition";
  const totalChunks = liveRuns(document).get(parsed.runId);
  if (totalChunks === undefined) return "staleRun";
  return parsed.sequence >= totalChunks ? "beyondGeneration" : null;
}

/**
 * Walks every partition of every live namespace and removes the vectors no document claims, then
 * drops the partitions of namespaces that no longer exist (where the store can list them).
 * Namespaces being deleted are left to their cascade, which drops their partitions whole.
 */
export async function reconcileVectors(namespaces: NamespaceRecord[], context: ReconcileContext): Promise<void> {
  for (const namespace of namespaces) {
    if (namespace.status !== "ACTIVE") continue;
    for (const { tenantId } of await (await vectorStore()).listPartitions(namespace.id)) {
      if (outOfTime(context)) return;
      await reconcilePartition(partitionOf({ namespaceId: namespace.id, tenantId }, namespace), context);
    }
  }
  await dropPartitionsOfDeletedNamespaces(new Set(namespaces.map((namespace) => namespace.id)), context);
}

async function reconcilePartition(partition: VectorPartition, context: ReconcileContext): Promise<void> {
  const store = (await vectorStore());
  const counts = context.report.vectors;
  counts.partitions += 1;
  for await (const keys of store.listKeys(partition)) {
    counts.scanned += keys.length;
    const documentIds = keys.flatMap((key) => parseVectorKey(key)?.documentId ?? []);
    const documents = await getDocuments(documentIds);
    const orphans: string[] = [];
    for (const key of keys) {
      const reason = vectorOrphanReason(key, documents.get(parseVectorKey(key)?.documentId ?? ""), partition);
      if (reason === null) continue;
      counts[reason] += 1;
      orphans.push(key);
      addFinding(context.report, { kind: "vector", id: `${describePartition(partition)} ${key}`, action: "delete", reason });
    }
    counts.deleted += orphans.length;
    if (!context.dryRun && orphans.length > 0) await store.deleteKeys(partition, orphans);
  }
}

async function dropPartitionsOfDeletedNamespaces(known: Set<string>, context: ReconcileContext): Promise<void> {
  const store = (await vectorStore());
  if (!store.listAllPartitions) return;
  for (const partition of await store.listAllPartitions()) {
    // Read again: a namespace created after the scan is not in `known` but very much alive.
    if (known.has(partition.namespaceId) || (await getNamespace(partition.namespaceId))) continue;
    context.report.vectors.partitionsDropped += 1;
    addFinding(context.report, { kind: "partition", id: describePartition(partition), action: "delete", reason: "namespaceGone" });
    if (!context.dryRun) await store.dropPartition(partition);
  }
}

function describePartition(partition: Pick<VectorPartition, "namespaceId" | "tenantId">): string {
  return partition.tenantId === null ? partition.namespaceId : `${partition.namespaceId}/${partition.tenantId}`;
}
