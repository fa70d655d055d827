import { GetCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { dynamo } from "./dynamo/client.ts";
import { config } from "../platform/env.ts";
import { conflict, forbidden, notFound } from "../domain/errors.ts";
import { isConditionFailure } from "./dynamo/conditions.ts";
import { newId } from "../platform/ids.ts";
import { nowIso } from "../platform/time.ts";
import {
  defaultEmbeddingConfig,
  type EmbeddingConfig,
  type NamespaceRecord,
  namespaceRecordSchema,
  type RerankingConfig,
  type VectorStoreConfig,
} from "../domain/namespace.ts";
import { isNamespaceId } from "../domain/params.ts";
import { keys, organizationListKeys, organizationListGroup } from "./dynamo/keys.ts";
import { queryWholeGroup } from "./dynamo/query.ts";
import { retryingConflicts } from "./dynamo/transact.ts";
import { recordFromItem } from "./dynamo/items.ts";
import { release, reserve, writeWithReservations } from "./reservations.ts";

export type NamespaceAccess = "active" | "any";

export function namespaceFromItem(item: Record<string, unknown>): NamespaceRecord {
  return recordFromItem("namespace", namespaceRecordSchema, item);
}

export async function getNamespace(namespaceId: string): Promise<NamespaceRecord | null> {
  const result = await dynamo().send(
    new GetCommand({ TableName: config.tableName(), Key: keys.namespace(namespaceId), ConsistentRead: true }),
  );
  return result.Item ? namespaceFromItem(result.Item) : null;
}

/** A slug names a namespace only within its organization: another organization's slug is not found. */
async function namespaceIdOfSlug(organizationId: string, slug: string): Promise<string | null> {
  const result = await dynamo().send(
    new GetCommand({ TableName: config.tableName(), Key: keys.namespaceSlug(organizationId, slug), ConsistentRead: true }),
  );
  const namespaceId = result.Item?.namespaceId;
  return typeof namespaceId === "string" ? namespaceId : null;
}

/**
 * The namespace addressed by a request (by id, or by slug within the caller's organization): 404 when it does not exist, 403 when another organization
 * owns it, and with `active` access 409 when it is being deleted.
 */
export async function loadNamespaceForOrganization(
  organizationId: string,
  namespaceRef: string,
  access: NamespaceAccess,
): Promise<NamespaceRecord> {
  const namespaceId = isNamespaceId(namespaceRef) ? namespaceRef : await namespaceIdOfSlug(organizationId, namespaceRef);
  const namespace = namespaceId === null ? null : await getNamespace(namespaceId);
  if (!namespace) throw notFound(`Namespace ${namespaceRef} not found.`);
  if (namespace.organizationId !== organizationId) {
    throw forbidden(`Namespace ${namespaceId} belongs to another organization.`);
  }
  if (access === "active" && namespace.status !== "ACTIVE") {
    throw conflict(`Namespace ${namespaceId} is being deleted.`);
  }
  return namespace;
}

export async function listNamespaces(organizationId: string): Promise<NamespaceRecord[]> {
  const items = await queryWholeGroup("collection", organizationListGroup("NAMESPACES", organizationId));
  return items.map(namespaceFromItem);
}

export interface CreateNamespaceInput {
  name: string;
  slug: string;
  embeddingConfig?: EmbeddingConfig;
  vectorStoreConfig?: VectorStoreConfig;
  rerankingConfig?: RerankingConfig;
}

export async function createNamespace(organizationId: string, input: CreateNamespaceInput): Promise<NamespaceRecord> {
  const now = nowIso();
  const record: NamespaceRecord = {
    id: newId("namespace"),
    name: input.name,
    slug: input.slug,
    organizationId,
    status: "ACTIVE",
    createdAt: now,
    updatedAt: now,
    embeddingConfig: input.embeddingConfig ?? defaultEmbeddingConfig(config.defaultEmbeddingProvider()),
    vectorStoreConfig: input.vectorStoreConfig ?? { provider: "MANAGED_VECTORSTORE" },
    ...(input.rerankingConfig ? { rerankingConfig: input.rerankingConfig } : {}),
  };
  await writeWithReservations([
    {
      action: {
        Put: {
          TableName: config.tableName(),
          Item: {
            ...keys.namespace(record.id),
            ...organizationListKeys("NAMESPACES", organizationId, now, record.id),
            entityType: "Namespace",
            ...record,
          },
          ConditionExpression: "attribute_not_exists(PK)",
        },
      },
    },
    slugReservation(organizationId, record.slug, record.id),
  ]);
  return record;
}

function slugReservation(organizationId: string, slug: string, namespaceId: string) {
  return reserve(keys.namespaceSlug(organizationId, slug), "NamespaceSlug", { namespaceId }, () => conflict(`A namespace with slug "${slug}" already exists.`));
}

export async function updateNamespace(
  namespace: NamespaceRecord,
  patch: { name?: string; slug?: string; rerankingConfig?: RerankingConfig | null },
): Promise<NamespaceRecord> {
  const name = patch.name ?? namespace.name;
  const slug = patch.slug ?? namespace.slug;
  const reranking = patch.rerankingConfig === undefined ? namespace.rerankingConfig : (patch.rerankingConfig ?? undefined);
  const rerankingChanged = JSON.stringify(reranking) !== JSON.stringify(namespace.rerankingConfig);
  if (name === namespace.name && slug === namespace.slug && !rerankingChanged) return namespace;
  const { rerankingConfig: _previous, ...rest } = namespace;
  const updated: NamespaceRecord = { ...rest, name, slug, updatedAt: nowIso(), ...(reranking ? { rerankingConfig: reranking } : {}) };
  const table = config.tableName();
  const slugChanged = slug !== namespace.slug;
  await writeWithReservations([
    {
      action: {
        Update: {
          TableName: table,
          Key: keys.namespace(namespace.id),
          UpdateExpression: `SET #name = :name, slug = :slug, updatedAt = :now${reranking ? ", rerankingConfig = :reranking" : " REMOVE rerankingConfig"}`,
          ConditionExpression: "#status = :active AND slug = :oldSlug",
          ExpressionAttributeNames: { "#name": "name", "#status": "status" },
          ExpressionAttributeValues: {
            ":name": name,
            ":slug": slug,
            ":now": updated.updatedAt,
            ":active": "ACTIVE",
            ":oldSlug": namespace.slug,
            ...(reranking ? { ":reranking": reranking } : {}),
          },
        },
      },
      ifRefused: () => conflict(`Namespace ${namespace.id} changed while it was being updated (or is being deleted); retry.`),
    },
    ...(slugChanged ? [slugReservation(namespace.organizationId, slug, namespace.id), release(keys.namespaceSlug(namespace.organizationId, namespace.slug))] : []),
  ]);
  return updated;
}

/** Marks the namespace DELETING; 409 if a deletion is already under way. */
export async function markNamespaceDeleting(namespace: NamespaceRecord): Promise<NamespaceRecord> {
  const now = nowIso();
  try {
    // Job creation condition-checks the namespace in a transaction, which this write can meet.
    await retryingConflicts(() =>
      dynamo().send(
        new UpdateCommand({
          TableName: config.tableName(),
          Key: keys.namespace(namespace.id),
          UpdateExpression: "SET #status = :deleting, updatedAt = :now",
          ConditionExpression: "#status = :active",
          ExpressionAttributeNames: { "#status": "status" },
          ExpressionAttributeValues: { ":deleting": "DELETING", ":active": "ACTIVE", ":now": now },
        }),
      ),
    );
  } catch (error) {
    if (isConditionFailure(error)) throw conflict(`Namespace ${namespace.id} is already being deleted.`);
    throw error;
  }
  return { ...namespace, status: "DELETING", updatedAt: now };
}

/** Removes the namespace record and its slug reservation: the last step of the deletion cascade. */
export async function removeNamespaceRecord(namespace: NamespaceRecord): Promise<void> {
  const table = config.tableName();
  await writeWithReservations([
    { action: { Delete: { TableName: table, Key: keys.namespace(namespace.id) } } },
    release(keys.namespaceSlug(namespace.organizationId, namespace.slug), { field: "namespaceId", value: namespace.id }),
  ]);
}

/** Undoes markNamespaceDeleting when the cascade could not be queued. */
export async function restoreNamespaceActive(namespaceId: string): Promise<void> {
  await dynamo().send(
    new UpdateCommand({
      TableName: config.tableName(),
      Key: keys.namespace(namespaceId),
      UpdateExpression: "SET #status = :active",
      ConditionExpression: "#status = :deleting",
      ExpressionAttributeNames: { "#status": "status" },
      ExpressionAttributeValues: { ":active": "ACTIVE", ":deleting": "DELETING" },
    }),
  );
}
