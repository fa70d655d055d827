import { QueryCommand } from "@aws-sdk/lib-dynamodb";
import { dynamo } from "./client.ts";
import { config } from "../../platform/env.ts";
import { type CursorBinding, decodeCursor, encodeCursor } from "./cursor.ts";
import { listGroup, type ListTarget, parentGroup } from "./keys.ts";
import { serviceSecret } from "../service-secret.ts";
import { INDEX, type IndexKey, LIST_SORT_KEY } from "./table-schema.ts";
import type { Pagination } from "../../domain/wire/schemas.ts";
export interface PageRequest {
  collection: "JOBS" | "DOCS";
  namespaceId: string;
  tenantId: string | null;
  statuses: string[] | null;
  /** Documents of one ingest job. */
  parentJobId: string | null;
  order: "asc" | "desc";
  direction: "forward" | "backward";
  cursor: string | null;
  perPage: number;
}

export type { Pagination };

type Item = Record<string, unknown>;

/** One index group to read, with the filter that applies inside it (only for a job's documents). */
interface Source {
  index: IndexKey;
  group: string;
  filter?: { expression: string; names: Record<string, string>; values: Record<string, unknown> };
}

/**
 * One page of a list, in (createdAt, id) order. Every source group holds exactly the records
 * that match (status and tenant are part of the partition key), so a page reads about `perPage`
 * items per group whatever the size of the namespace, and pages are always full when enough
 * records remain. Several statuses are read in parallel and merged.
 */
export async function listPage(request: PageRequest): Promise<{ items: Item[]; pagination: Pagination }> {
  const secret = await serviceSecret("cursor");
  const binding: CursorBinding = {
    collection: request.collection,
    namespaceId: request.namespaceId,
    tenantId: request.tenantId,
    statuses: request.statuses,
    parentId: request.parentJobId,
    order: request.order,
  };
  const position = request.cursor ? decodeCursor(secret, request.cursor, binding) : null;
  const sources = sourcesFor(request);
  const requestedAscending = request.order === "asc";
  const scanAscending = request.direction === "forward" ? requestedAscending : !requestedAscending;

  let rows = await readMerged(sources, position, scanAscending, request.perPage + 1);
  const hasMore = rows.length > request.perPage;
  // Trim before reversing: a backward page must keep the records next to the cursor.
  rows = rows.slice(0, request.perPage);
  if (request.direction === "backward") rows.reverse();

  const sortKeyOf = (item: Item | undefined) => String(item?.[LIST_SORT_KEY] ?? "");
  const first = rows[0];
  const last = rows[rows.length - 1];
  const cursorAt = (item: Item) => encodeCursor(secret, sortKeyOf(item), binding);
  let nextCursor: string | null = null;
  let prevCursor: string | null = null;
  if (request.direction === "forward") {
    if (hasMore && last) nextCursor = cursorAt(last);
    if (position !== null && first && (await anyBeyond(sources, sortKeyOf(first), !requestedAscending))) prevCursor = cursorAt(first);
  } else {
    if (hasMore && first) prevCursor = cursorAt(first);
    if (last && (await anyBeyond(sources, sortKeyOf(last), requestedAscending))) nextCursor = cursorAt(last);
  }
  return { items: rows, pagination: { nextCursor, prevCursor, hasMore } };
}

function sourcesFor(request: PageRequest): Source[] {
  if (request.parentJobId !== null) {
    const names: Record<string, string> = {};
    const values: Record<string, unknown> = {};
    const clauses: string[] = [];
    if (request.statuses) {
      names["#status"] = "status";
      const placeholders = request.statuses.map((status, index) => {
        values[`:status${index}`] = status;
        return `:status${index}`;
      });
      clauses.push(`#status IN (${placeholders.join(", ")})`);
    }
    if (request.tenantId !== null) {
      names["#tenant"] = "tenantId";
      values[":tenant"] = request.tenantId;
      clauses.push("#tenant = :tenant");
    }
    return [
      {
        index: "parent",
        group: parentGroup(request.parentJobId),
        filter: clauses.length > 0 ? { expression: clauses.join(" AND "), names, values } : undefined,
      },
    ];
  }
  const targetOf = (status: string | null): ListTarget => ({
    collection: request.collection,
    namespaceId: request.namespaceId,
    tenantId: request.tenantId,
    status,
  });
  if (request.statuses) {
    const index: IndexKey = request.tenantId === null ? "status" : "tenantStatus";
    return [...new Set(request.statuses)].map((status) => ({ index, group: listGroup(index, targetOf(status))! }));
  }
  const index: IndexKey = request.tenantId === null ? "collection" : "tenant";
  return [{ index, group: listGroup(index, targetOf(null))! }];
}

async function readMerged(sources: Source[], after: string | null, ascending: boolean, limit: number): Promise<Item[]> {
  const perSource = await Promise.all(sources.map((source) => readSource(source, after, ascending, limit)));
  const merged = perSource.flat();
  merged.sort((a, b) => {
    const left = String(a[LIST_SORT_KEY]);
    const right = String(b[LIST_SORT_KEY]);
    return ascending ? (left < right ? -1 : left > right ? 1 : 0) : left < right ? 1 : left > right ? -1 : 0;
  });
  return merged.slice(0, limit);
}

/** Up to `limit` items of one group strictly beyond `after` in the scan direction. */
async function readSource(source: Source, after: string | null, ascending: boolean, limit: number): Promise<Item[]> {
  const items: Item[] = [];
  let startKey: Item | undefined;
  do {
    const page = await dynamo().send(
      new QueryCommand({
        TableName: config.tableName(),
        IndexName: INDEX[source.index].name,
        KeyConditionExpression: after === null ? "#pk = :pk" : `#pk = :pk AND #sk ${ascending ? ">" : "<"} :after`,
        FilterExpression: source.filter?.expression,
        ExpressionAttributeNames: {
          "#pk": INDEX[source.index].partitionKey,
          ...(after === null ? {} : { "#sk": LIST_SORT_KEY }),
          ...source.filter?.names,
        },
        ExpressionAttributeValues: { ":pk": source.group, ...(after === null ? {} : { ":after": after }), ...source.filter?.values },
        ScanIndexForward: ascending,
        // With a filter DynamoDB counts items read, not items returned: read a little more per call.
        Limit: source.filter ? Math.max(limit, 100) : limit,
        ExclusiveStartKey: startKey,
      }),
    );
    items.push(...(page.Items ?? []));
    startKey = page.LastEvaluatedKey;
  } while (startKey && items.length < limit);
  return items.slice(0, limit);
}

async function anyBeyond(sources: Source[], sortKey: string, ascending: boolean): Promise<boolean> {
  const found = await Promise.all(sources.map((source) => readSource(source, sortKey, ascending, 1)));
  return found.some((items) => items.length > 0);
}
