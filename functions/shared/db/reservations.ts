import { config } from "../platform/env.ts";
import { cancellationReasons, isConditionFailure } from "./dynamo/conditions.ts";
import type { TableKey } from "./dynamo/keys.ts";
import { type TransactItems, transactWrite } from "./dynamo/transact.ts";

/**
 * One transaction that writes a record together with the uniqueness reservations it needs (a slug,
 * an externalId: items keyed by the unique value, which exist only once) and releases the ones it
 * gives up. Each action says which refusal the caller hears when its condition fails, so a taken
 * slug and a record that changed underneath are told apart without counting positions.
 */
export interface GuardedAction {
  action: TransactItems[number];
  /** The error to throw when this action's condition fails. */
  ifRefused?: () => Error;
}

export async function writeWithReservations(actions: GuardedAction[]): Promise<void> {
  try {
    await transactWrite(actions.map(({ action }) => action));
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    const reasons = cancellationReasons(error);
    const refused = actions.find((_, index) => reasons[index] === "ConditionalCheckFailed");
    throw refused?.ifRefused?.() ?? error;
  }
}

/** Claims a unique value: the item keyed by it must not exist yet, and records its owner. */
export function reserve(key: TableKey, entityType: string, owner: Record<string, string>, ifTaken: () => Error): GuardedAction {
  return {
    action: { Put: { TableName: config.tableName(), Item: { ...key, entityType, ...owner }, ConditionExpression: "attribute_not_exists(PK)" } },
    ifRefused: ifTaken,
  };
}

/** Gives a unique value up: deletes its item, unless (with `owner`) someone else holds it by now. */
export function release(key: TableKey, owner?: { field: string; value: string }): GuardedAction {
  const guard = owner
    ? { ConditionExpression: "attribute_not_exists(PK) OR #owner = :owner", ExpressionAttributeNames: { "#owner": owner.field }, ExpressionAttributeValues: { ":owner": owner.value } }
    : {};
  return { action: { Delete: { TableName: config.tableName(), Key: key, ...guard } } };
}
