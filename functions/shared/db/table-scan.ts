import { ScanCommand } from "@aws-sdk/lib-dynamodb";
import { dynamo } from "./dynamo/client.ts";
import { config } from "../platform/env.ts";
import { namespaceFromItem } from "./namespaces.ts";
import { documentFromItem, jobFromItem } from "./records.ts";
import type { DocumentRecord } from "../domain/document.ts";
import type { IngestJobRecord } from "../domain/ingest-job.ts";
import type { NamespaceRecord } from "../domain/namespace.ts";
import { DELETION_STATUSES, QUEUED_STATUSES, WORKING_STATUSES } from "../domain/statuses.ts";

/** Statuses in which a record waits for a worker; one left in them too long is swept. */
export const SWEPT_STATUSES = [...QUEUED_STATUSES, ...WORKING_STATUSES, ...DELETION_STATUSES];

export interface TableInventory {
  namespaces: NamespaceRecord[];
  staleJobs: IngestJobRecord[];
  staleDocuments: DocumentRecord[];
}

/**
 * One paginated Scan for every namespace and for the jobs and documents that have waited in a
 * working status since before `cutoff`. A Scan reads (and bills) the whole table; that is accepted
 * for an operator job that runs hourly, and it is the one read that cannot miss a record whose
 * index entries a bug has left wrong. The filter keeps what comes back small.
 */
export async function scanTable(cutoff: Date): Promise<TableInventory> {
  const inventory: TableInventory = { namespaces: [], staleJobs: [], staleDocuments: [] };
  const statusValues = Object.fromEntries(SWEPT_STATUSES.map((status, index) => [`:s${index}`, status]));
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await dynamo().send(
      new ScanCommand({
        TableName: config.tableName(),
        FilterExpression:
          `entityType = :namespace OR (entityType IN (:job, :document) AND #status IN (${Object.keys(statusValues).join(", ")}) ` +
          "AND updatedAt < :cutoff)",
        ExpressionAttributeNames: { "#status": "status" },
        ExpressionAttributeValues: {
          ":namespace": "Namespace",
          ":job": "IngestJob",
          ":document": "Document",
          ":cutoff": cutoff.toISOString(),
          ...statusValues,
        },
        ExclusiveStartKey: startKey,
      }),
    );
    for (const item of page.Items ?? []) {
      if (item.entityType === "Namespace") inventory.namespaces.push(namespaceFromItem(item));
      else if (item.entityType === "IngestJob") inventory.staleJobs.push(jobFromItem(item));
      else inventory.staleDocuments.push(documentFromItem(item));
    }
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return inventory;
}
