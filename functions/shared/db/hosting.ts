import { randomBytes } from "node:crypto";
import { GetCommand } from "@aws-sdk/lib-dynamodb";
import { dynamo } from "./dynamo/client.ts";
import { config } from "../platform/env.ts";
import { conflict, notFound } from "../domain/errors.ts";
import { isConditionFailure } from "./dynamo/conditions.ts";
import { nowIso } from "../platform/time.ts";
import { applyHostingPatch, type HostingPatch, type HostingRecord, hostingRecordSchema, newHosting } from "../domain/hosting.ts";
import type { NamespaceRecord } from "../domain/namespace.ts";
import { keys } from "./dynamo/keys.ts";
import { transactWrite } from "./dynamo/transact.ts";
import { recordFromItem } from "./dynamo/items.ts";
import { release, reserve, writeWithReservations } from "./reservations.ts";

const SLUG_ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789";

function randomSlugSuffix(length = 10): string {
  const bytes = randomBytes(length);
  return Array.from(bytes, (byte) => SLUG_ALPHABET[byte % SLUG_ALPHABET.length]).join("");
}

export function hostingFromItem(item: Record<string, unknown>): HostingRecord {
  return recordFromItem("hosting", hostingRecordSchema, item);
}

export async function getHosting(namespaceId: string): Promise<HostingRecord | null> {
  const result = await dynamo().send(
    new GetCommand({ TableName: config.tableName(), Key: keys.hosting(namespaceId), ConsistentRead: true }),
  );
  return result.Item ? hostingFromItem(result.Item) : null;
}

/** The hosting that owns a slug now; null when no hosting does (never was, deleted, or moved to another slug). */
export async function getHostingBySlug(slug: string): Promise<HostingRecord | null> {
  const reservation = await dynamo().send(new GetCommand({ TableName: config.tableName(), Key: keys.hostingSlug(slug), ConsistentRead: true }));
  const namespaceId = reservation.Item?.namespaceId;
  if (typeof namespaceId !== "string") return null;
  const hosting = await getHosting(namespaceId);
  return hosting && hosting.slug === slug ? hosting : null;
}

export async function requireHosting(namespaceId: string): Promise<HostingRecord> {
  const hosting = await getHosting(namespaceId);
  if (!hosting) throw notFound(`Hosting is not enabled for namespace ${namespaceId}.`);
  return hosting;
}

/** The table item of a hosting record, as written. */
export function hostingItem(record: HostingRecord) {
  return { ...keys.hosting(record.namespaceId), entityType: "Hosting", ...record };
}

/** A generated hosting slug met one already taken: another suffix is tried. */
class HostingSlugTaken extends Error {}

function slugReservation(slug: string, namespaceId: string, ifTaken: () => Error) {
  return reserve(keys.hostingSlug(slug), "HostingSlug", { namespaceId }, ifTaken);
}

/** Enables hosting with its defaults; 409 when it is already enabled. Hosting slugs are global. */
export async function enableHosting(namespace: NamespaceRecord): Promise<HostingRecord> {
  // A generated slug can collide with one chosen by hand; a fresh suffix settles it.
  for (let attempt = 0; attempt < 3; attempt += 1) {
    const record = newHosting(namespace, randomSlugSuffix(), nowIso());
    try {
      await writeWithReservations([
        {
          action: { Put: { TableName: config.tableName(), Item: hostingItem(record), ConditionExpression: "attribute_not_exists(PK)" } },
          ifRefused: () => conflict(`Hosting is already enabled for namespace ${namespace.id}.`),
        },
        slugReservation(record.slug, namespace.id, () => new HostingSlugTaken()),
      ]);
      return record;
    } catch (error) {
      if (!(error instanceof HostingSlugTaken)) throw error;
    }
  }
  throw conflict("Could not reserve a unique hosting slug; retry.");
}

export async function updateHosting(namespaceId: string, patch: HostingPatch): Promise<HostingRecord> {
  const current = await requireHosting(namespaceId);
  const next = applyHostingPatch(current, patch, nowIso());
  const table = config.tableName();
  const slugChanged = next.slug !== current.slug;
  await writeWithReservations([
    {
      action: {
        Put: {
          TableName: table,
          Item: hostingItem(next),
          // Optimistic concurrency: a concurrent update or delete makes this one fail cleanly.
          ConditionExpression: "updatedAt = :seen",
          ExpressionAttributeValues: { ":seen": current.updatedAt },
        },
      },
      ifRefused: () => conflict(`Hosting of namespace ${namespaceId} changed while it was being updated; retry.`),
    },
    ...(slugChanged
      ? [slugReservation(next.slug, namespaceId, () => conflict(`Hosting slug "${next.slug}" is taken.`)), release(keys.hostingSlug(current.slug))]
      : []),
  ]);
  return next;
}

/** Deletes hosting and returns the record as it was; 404 when hosting is not enabled. */
export async function deleteHosting(namespaceId: string): Promise<HostingRecord> {
  const current = await requireHosting(namespaceId);
  try {
    await removeHosting(current, true);
  } catch (error) {
    if (isConditionFailure(error)) throw conflict(`Hosting of namespace ${namespaceId} changed while it was being deleted; retry.`);
    throw error;
  }
  return current;
}

/** Removes a hosting record and its slug; `exact` refuses if the record changed since it was read. */
export async function removeHosting(current: HostingRecord, exact: boolean): Promise<void> {
  const table = config.tableName();
  await transactWrite([
    {
      Delete: {
        TableName: table,
        Key: keys.hosting(current.namespaceId),
        ...(exact ? { ConditionExpression: "updatedAt = :seen", ExpressionAttributeValues: { ":seen": current.updatedAt } } : {}),
      },
    },
    { Delete: { TableName: table, Key: keys.hostingSlug(current.slug) } },
  ]);
}
