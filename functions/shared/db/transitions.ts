import { UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { dynamo } from "../aws-clients.ts";
import { config } from "../env.ts";
import { isConditionFailure } from "../errors.ts";
import { nowIso } from "../time.ts";
import type { Status } from "../domain/statuses.ts";
import { listPartition, type TableKey } from "./keys.ts";
import { toRecord } from "./items.ts";
import { retryingConflicts } from "./transact.ts";
import { INDEX } from "./table-schema.ts";

/** What a status change needs to know of the record to keep its status-keyed index entries right. */
export interface Transitionable {
  collection: "JOBS" | "DOCS";
  key: TableKey;
  namespaceId: string;
  tenantId: string | null;
}

export interface TransitionSpec {
  to: Status;
  /** Allowed current statuses; the change is refused otherwise. */
  from?: readonly Status[];
  /** The run the caller acts for; the change is refused if the record moved on to another run. */
  runId?: string;
  set?: Record<string, unknown>;
  /** Fields set to another field's value as it was before this update (for example the old status). */
  copy?: Record<string, string>;
  add?: Record<string, number>;
  /** Extra condition, with its own placeholders in `values`. */
  condition?: string;
  values?: Record<string, unknown>;
}

/**
 * The UpdateItem of a status change. Every status write goes through here so the status index
 * partitions (GSI3/GSI4) always follow the status, and every change is conditional: on the record
 * still existing, on the expected current status and on the expected run.
 */
export function transitionUpdate(target: Transitionable, spec: TransitionSpec) {
  const names: Record<string, string> = { "#status": "status", "#updatedAt": "updatedAt", "#pk": "PK" };
  const values: Record<string, unknown> = { ":to": spec.to, ":now": nowIso(), ...spec.values };
  const sets = ["#status = :to", "#updatedAt = :now"];
  const scope = { collection: target.collection, namespaceId: target.namespaceId, tenantId: target.tenantId, status: spec.to };
  for (const index of ["status", "tenantStatus"] as const) {
    const partition = listPartition(index, scope);
    if (partition === null) continue;
    names[`#index_${index}`] = INDEX[index].partitionKey;
    values[`:index_${index}`] = partition;
    sets.push(`#index_${index} = :index_${index}`);
  }
  Object.entries(spec.set ?? {}).forEach(([field, value], position) => {
    names[`#s${position}`] = field;
    values[`:s${position}`] = value;
    sets.push(`#s${position} = :s${position}`);
  });
  Object.entries(spec.copy ?? {}).forEach(([field, from], position) => {
    names[`#c${position}`] = field;
    names[`#cf${position}`] = from;
    sets.push(`#c${position} = #cf${position}`);
  });
  const adds = Object.entries(spec.add ?? {}).map(([field, amount], position) => {
    names[`#a${position}`] = field;
    values[`:a${position}`] = amount;
    return `#a${position} :a${position}`;
  });
  const conditions = ["attribute_exists(#pk)"];
  if (spec.from) {
    const placeholders = spec.from.map((status, position) => {
      values[`:from${position}`] = status;
      return `:from${position}`;
    });
    conditions.push(`#status IN (${placeholders.join(", ")})`);
  }
  if (spec.runId !== undefined) {
    names["#runId"] = "runId";
    values[":runId"] = spec.runId;
    conditions.push("#runId = :runId");
  }
  if (spec.condition) conditions.push(`(${spec.condition})`);
  return {
    TableName: config.tableName(),
    Key: target.key,
    UpdateExpression: `SET ${sets.join(", ")}${adds.length > 0 ? ` ADD ${adds.join(", ")}` : ""}`,
    ConditionExpression: conditions.join(" AND "),
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
  };
}

/**
 * Applies a status change and returns the record as it now is, or null when the change's
 * conditions no longer held (someone else moved first).
 */
export async function transition<T = Record<string, unknown>>(target: Transitionable, spec: TransitionSpec): Promise<T | null> {
  try {
    const update = transitionUpdate(target, spec);
    // Jobs and documents are also written in transactions; a status change that meets one is retried.
    const result = await retryingConflicts(() => dynamo().send(new UpdateCommand({ ...update, ReturnValues: "ALL_NEW" })));
    return result.Attributes ? toRecord<T>(result.Attributes) : null;
  } catch (error) {
    if (isConditionFailure(error)) return null;
    throw error;
  }
}
