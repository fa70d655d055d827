import { randomBytes } from "node:crypto";
import { GetCommand, PutCommand } from "@aws-sdk/lib-dynamodb";
import { dynamo } from "./dynamo/client.ts";
import { config } from "../platform/env.ts";
import { isConditionFailure } from "./dynamo/conditions.ts";
import { keys } from "./dynamo/keys.ts";

const cache = new Map<string, Promise<Buffer>>();

/**
 * A random secret the service generates for itself on first use and keeps in its own table (for
 * example the key that signs pagination cursors). No deployment parameter to manage, and every
 * function of a stack sees the same value.
 */
export function serviceSecret(name: string): Promise<Buffer> {
  const cacheKey = `${config.tableName()}/${name}`;
  let secret = cache.get(cacheKey);
  if (!secret) {
    secret = loadOrCreate(name);
    secret.catch(() => cache.delete(cacheKey));
    cache.set(cacheKey, secret);
  }
  return secret;
}

async function loadOrCreate(name: string): Promise<Buffer> {
  const existing = await dynamo().send(new GetCommand({ TableName: config.tableName(), Key: keys.serviceSecret(name), ConsistentRead: true }));
  if (typeof existing.Item?.value === "string") return Buffer.from(existing.Item.value, "base64");
  const value = randomBytes(32).toString("base64");
  try {
    await dynamo().send(
      new PutCommand({
        TableName: config.tableName(),
        Item: { ...keys.serviceSecret(name), entityType: "ServiceSecret", value },
        ConditionExpression: "attribute_not_exists(PK)",
      }),
    );
    return Buffer.from(value, "base64");
  } catch (error) {
    // Another function created it first; use theirs.
    if (!isConditionFailure(error)) throw error;
    return loadOrCreate(name);
  }
}
