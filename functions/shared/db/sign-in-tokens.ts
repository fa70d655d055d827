import { DeleteCommand, PutCommand } from "@aws-sdk/lib-dynamodb";
import { dynamo } from "./dynamo/client.ts";
import { config } from "../platform/env.ts";
import { isConditionFailure } from "./dynamo/conditions.ts";
import { keys } from "./dynamo/keys.ts";
import { TTL_ATTRIBUTE } from "./dynamo/table-schema.ts";
import * as z from "../platform/zod.ts";
import { recordFromItem } from "./dynamo/items.ts";

/**
 * One-time sign-in links of protected hosted pages. Only the token's SHA-256 is stored; a link is
 * used up by the one conditional delete that accepts it, so it works once, and never after it
 * expires (checked here, as TTL deletion can lag by days).
 */
export interface SignInGrant {
  namespaceId: string;
  email: string;
  /** Milliseconds since the epoch. */
  expiresAtMs: number;
}

/** A grant as stored; written with these fields since sign-in links were added. */
const signInGrantSchema = z.object({ namespaceId: z.string(), email: z.string(), expiresAtMs: z.number() }) satisfies z.ZodMiniType<SignInGrant>;

export async function saveSignInToken(tokenHash: string, grant: SignInGrant): Promise<void> {
  await dynamo().send(
    new PutCommand({
      TableName: config.tableName(),
      Item: { ...keys.signInToken(tokenHash), entityType: "SignInToken", ...grant, [TTL_ATTRIBUTE]: Math.ceil(grant.expiresAtMs / 1000) },
      ConditionExpression: "attribute_not_exists(PK)",
    }),
  );
}

/** The grant of an unused, unexpired token, which this call uses up; null otherwise. */
export async function consumeSignInToken(tokenHash: string, nowMs: number): Promise<SignInGrant | null> {
  try {
    const result = await dynamo().send(
      new DeleteCommand({
        TableName: config.tableName(),
        Key: keys.signInToken(tokenHash),
        ConditionExpression: "attribute_exists(PK) AND expiresAtMs > :now",
        ExpressionAttributeValues: { ":now": nowMs },
        ReturnValues: "ALL_OLD",
      }),
    );
    const item = result.Attributes;
    return item ? recordFromItem("sign-in grant", signInGrantSchema, item) : null;
  } catch (error) {
    if (isConditionFailure(error)) return null;
    throw error;
  }
}

/**
 * Claims the one pending link an address may have on a page: true when none is pending (or the last
 * one has expired), false when a link sent earlier still works, so nothing new is sent.
 */
export async function claimPendingLink(namespaceId: string, addressHash: string, expiresAtMs: number, nowMs: number): Promise<boolean> {
  try {
    await dynamo().send(
      new PutCommand({
        TableName: config.tableName(),
        Item: { ...keys.pendingSignIn(namespaceId, addressHash), entityType: "PendingSignIn", expiresAtMs, [TTL_ATTRIBUTE]: Math.ceil(expiresAtMs / 1000) },
        ConditionExpression: "attribute_not_exists(PK) OR expiresAtMs <= :now",
        ExpressionAttributeValues: { ":now": nowMs },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

/** Gives a claim back when its link was not sent, so the address can ask again at once. */
export async function releasePendingLink(namespaceId: string, addressHash: string): Promise<void> {
  await dynamo().send(new DeleteCommand({ TableName: config.tableName(), Key: keys.pendingSignIn(namespaceId, addressHash) }));
}

export async function deleteSignInToken(tokenHash: string): Promise<void> {
  await dynamo().send(new DeleteCommand({ TableName: config.tableName(), Key: keys.signInToken(tokenHash) }));
}
