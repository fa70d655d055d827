import { randomBytes } from "node:crypto";
import { DeleteCommand, GetCommand, PutCommand, ScanCommand } from "@aws-sdk/lib-dynamodb";
import { dynamo } from "./dynamo/client.ts";
import { config } from "../platform/env.ts";
import { isConditionFailure } from "./dynamo/conditions.ts";
import { newId } from "../platform/ids.ts";
import { nowIso } from "../platform/time.ts";
import { generateApiKey, hashApiKey, keyIdFromHash, keyPreview } from "../domain/api-key-format.ts";
import { type ApiKeyRecord, apiKeyRecordSchema, type OrganizationRecord, organizationRecordSchema } from "../domain/organization.ts";
import { ALL_ORGANIZATIONS_GROUP, allOrganizationsListKeys, keys, organizationListKeys, organizationListGroup } from "./dynamo/keys.ts";
import { queryWholeGroup } from "./dynamo/query.ts";
import { recordFromItem } from "./dynamo/items.ts";
import { reserve, writeWithReservations } from "./reservations.ts";

export type { ApiKeyRecord, OrganizationRecord };

export function organizationFromItem(item: Record<string, unknown>): OrganizationRecord {
  return recordFromItem("organization", organizationRecordSchema, item);
}

export function apiKeyFromItem(item: Record<string, unknown>): ApiKeyRecord {
  return recordFromItem("API key", apiKeyRecordSchema, item);
}

export async function getOrganization(organizationId: string): Promise<OrganizationRecord | null> {
  const result = await dynamo().send(
    new GetCommand({ TableName: config.tableName(), Key: keys.organization(organizationId), ConsistentRead: true }),
  );
  return result.Item ? organizationFromItem(result.Item) : null;
}

export async function findOrganizationByName(name: string): Promise<OrganizationRecord | null> {
  const pointer = await dynamo().send(
    new GetCommand({ TableName: config.tableName(), Key: keys.organizationName(name), ConsistentRead: true }),
  );
  const organizationId = pointer.Item?.organizationId;
  return typeof organizationId === "string" ? getOrganization(organizationId) : null;
}

/** Returns the organization with this name, creating it first when there is none. */
export async function ensureOrganization(name: string): Promise<{ organization: OrganizationRecord; created: boolean }> {
  const existing = await findOrganizationByName(name);
  if (existing) return { organization: existing, created: false };
  const now = nowIso();
  const organization: OrganizationRecord = { id: newId("organization"), name, createdAt: now, usageKey: randomBytes(24).toString("base64url") };
  try {
    await writeWithReservations([
      {
        action: {
          Put: {
            TableName: config.tableName(),
            Item: { ...keys.organization(organization.id), ...allOrganizationsListKeys(now, organization.id), entityType: "Organization", ...organization },
            ConditionExpression: "attribute_not_exists(PK)",
          },
        },
      },
      reserve(keys.organizationName(name), "OrganizationName", { organizationId: organization.id }, () => new OrganizationNameTaken()),
    ]);
    return { organization, created: true };
  } catch (error) {
    if (!(error instanceof OrganizationNameTaken)) throw error;
    // Someone created it concurrently: theirs wins.
    const winner = await findOrganizationByName(name);
    if (winner) return { organization: winner, created: false };
    throw error;
  }
}

class OrganizationNameTaken extends Error {}

export async function listOrganizations(): Promise<OrganizationRecord[]> {
  const items = await queryWholeGroup("collection", ALL_ORGANIZATIONS_GROUP);
  return items.map(organizationFromItem);
}

/**
 * Stores a key for an organization. With no `key` given a new random one is generated; the clear
 * key is returned once and never stored.
 */
export async function issueApiKey(
  organization: OrganizationRecord,
  label: string,
  key: string = generateApiKey(),
): Promise<{ key: string; record: ApiKeyRecord }> {
  const keyHash = hashApiKey(key);
  const record: ApiKeyRecord = {
    keyId: keyIdFromHash(keyHash),
    keyHash,
    keyPreview: keyPreview(key),
    label,
    organizationId: organization.id,
    usageKey: organization.usageKey,
    createdAt: nowIso(),
  };
  try {
    await dynamo().send(
      new PutCommand({
        TableName: config.tableName(),
        Item: {
          ...keys.apiKey(keyHash),
          ...organizationListKeys("APIKEYS", organization.id, record.createdAt, record.keyId),
          entityType: "ApiKey",
          ...record,
        },
        // Re-registering the same key for the same organization is a no-op; for another one it is refused.
        ConditionExpression: "attribute_not_exists(PK) OR organizationId = :org",
        ExpressionAttributeValues: { ":org": organization.id },
      }),
    );
  } catch (error) {
    if (isConditionFailure(error)) throw new Error("this key is already registered to another organization");
    throw error;
  }
  return { key, record };
}

/** The organization a presented key belongs to, or null for an unknown or revoked key. */
export async function resolveApiKey(key: string): Promise<ApiKeyRecord | null> {
  const result = await dynamo().send(new GetCommand({ TableName: config.tableName(), Key: keys.apiKey(hashApiKey(key)) }));
  return result.Item ? apiKeyFromItem(result.Item) : null;
}

export async function listApiKeys(organizationId: string): Promise<ApiKeyRecord[]> {
  const items = await queryWholeGroup("collection", organizationListGroup("APIKEYS", organizationId));
  return items.map(apiKeyFromItem);
}

/** Deletes a key by its public id. Operator tooling only, so a scan is acceptable here. */
export async function revokeApiKey(keyId: string): Promise<ApiKeyRecord | null> {
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await dynamo().send(
      new ScanCommand({
        TableName: config.tableName(),
        FilterExpression: "entityType = :type AND keyId = :keyId",
        ExpressionAttributeValues: { ":type": "ApiKey", ":keyId": keyId },
        ExclusiveStartKey: startKey,
      }),
    );
    const item = page.Items?.[0];
    if (item) {
      const record = apiKeyFromItem(item);
      await dynamo().send(new DeleteCommand({ TableName: config.tableName(), Key: keys.apiKey(record.keyHash) }));
      return record;
    }
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return null;
}
