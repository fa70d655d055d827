import { UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { dynamo } from "./client.ts";
import { config } from "../../platform/env.ts";
import { isConditionFailure } from "./conditions.ts";
import { nowIso } from "../../platform/time.ts";
import { DELETION_STATUSES, type Status } from "../../domain/statuses.ts";
import { assertMoves, DOCUMENT_LIFECYCLE, JOB_LIFECYCLE, mayRestore, statusesLeadingTo } from "../../domain/lifecycle.ts";
import { listGroup, type TableKey } from "./keys.ts";
import { retryingConflicts } from "./transact.ts";
import { INDEX } from "./table-schema.ts";

/** What a status change needs to know of the record to keep its status-keyed index entries right. */
export interface Transitionable {
  collection: "JOBS" | "DOCS";
  key: TableKey;
  namespaceId: string;
  tenantId: string | null;
}

/**
 * A status change (`to`, from the statuses the caller expects, or else from every status the
 * lifecycle lets reach `to`), or a write that `keep`s the status and is conditional on it.
 */
type StatusWrite =
  | { to: Status; from?: readonly Status[]; keep?: never; restore?: never }
  | { keep: Status; to?: never; from?: never; restore?: never }
  /** QUEUED_FOR_DELETE back to the status the deletion request found. */
  | { restore: Status; to?: never; from?: never; keep?: never };

export type TransitionSpec = StatusWrite & {
  /** The run the caller acts for; the change is refused if the record moved on to another run. */
  runId?: string;
  set?: Record<string, unknown>;
  /** Fields set to another field's value as it was before this update (for example the old status). */
  copy?: Record<string, string>;
  /** Extra condition, with its own placeholders in `values`. */
  condition?: string;
  values?: Record<string, unknown>;
};

/**
 * The UpdateItem of a status change. Every status write goes through here so the status index
 * groups (GSI3/GSI4) always follow the status, and every change is conditional: on the record
 * still existing, on the expected current status and on the expected run. A change the lifecycle
 * (domain/lifecycle.ts) does not allow throws before anything is written.
 */
export function transitionUpdate(target: Transitionable, spec: TransitionSpec) {
  const lifecycle = target.collection === "JOBS" ? JOB_LIFECYCLE : DOCUMENT_LIFECYCLE;
  let to: Status;
  let from: readonly Status[];
  if (spec.keep !== undefined) {
    to = spec.keep;
    from = [spec.keep];
  } else if (spec.restore !== undefined) {
    to = spec.restore;
    from = ["QUEUED_FOR_DELETE"];
    if (!mayRestore("QUEUED_FOR_DELETE", to)) throw new Error(`${target.collection}: a deletion request cannot be undone to ${to}`);
  } else {
    to = spec.to;
    from = spec.from ?? statusesLeadingTo(lifecycle, to);
    assertMoves(lifecycle, target.collection === "JOBS" ? "ingest job" : "document", from, to);
  }
  const names: Record<string, string> = { "#status": "status", "#updatedAt": "updatedAt", "#pk": "PK" };
  const values: Record<string, unknown> = { ":to": to, ":now": nowIso(), ...spec.values };
  const sets = ["#status = :to", "#updatedAt = :now"];
  const listTarget = { collection: target.collection, namespaceId: target.namespaceId, tenantId: target.tenantId, status: to };
  for (const index of ["status", "tenantStatus"] as const) {
    const group = listGroup(index, listTarget);
    if (group === null) continue;
    names[`#index_${index}`] = INDEX[index].partitionKey;
    values[`:index_${index}`] = group;
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
  const conditions = ["attribute_exists(#pk)"];
  const placeholders = from.map((status, position) => {
    values[`:from${position}`] = status;
    return `:from${position}`;
  });
  conditions.push(`#status IN (${placeholders.join(", ")})`);
  if (spec.runId !== undefined) {
    names["#runId"] = "runId";
    values[":runId"] = spec.runId;
    conditions.push("#runId = :runId");
  }
  if (spec.condition) conditions.push(`(${spec.condition})`);
  return {
    TableName: config.tableName(),
    Key: target.key,
    UpdateExpression: `SET ${sets.join(", ")}`,
    ConditionExpression: conditions.join(" AND "),
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
  };
}

/**
 * Applies a status change and returns the record as it now is, or null when the change's
 * conditions no longer held (someone else moved first).
 */
export async function transition<T>(target: Transitionable, spec: TransitionSpec, parse: (item: Record<string, unknown>) => T): Promise<T | null> {
  try {
    const update = transitionUpdate(target, spec);
    // Jobs and documents are also written in transactions; a status change that meets one is retried.
    const result = await retryingConflicts(() => dynamo().send(new UpdateCommand({ ...update, ReturnValues: "ALL_NEW" })));
    return result.Attributes ? parse(result.Attributes) : null;
  } catch (error) {
    if (isConditionFailure(error)) return null;
    throw error;
  }
}

/** The moments and outcome of a run that starts now: queued, nothing else yet. */
export function freshRunFields() {
  return { queuedAt: nowIso(), preProcessingAt: null, processingAt: null, completedAt: null, failedAt: null, error: null };
}

/** Declares one change of a repository, keeping its literal statuses (and checking it as it is typed). */
/* @__NO_SIDE_EFFECTS__ */
export function change<S extends TransitionSpec>(spec: S): S {
  return spec;
}

/** Counts a sweep on a job or a document, conditional on the record being exactly as read (status, run and `updatedAt`). */
export function sweepCounted<T extends { status: Status; runId: string; updatedAt: string }>(record: T, sweeps: { key: string; count: number }) {
  return change({
    keep: record.status,
    runId: record.runId,
    set: { sweeps },
    condition: "#updatedAt = :seenUpdatedAt",
    values: { ":seenUpdatedAt": record.updatedAt },
  });
}

/** The delete worker takes a queued deletion of a job or a document over. */
export function deletionStarted<T>(_record: T) {
  return change({ to: "DELETING", from: DELETION_STATUSES });
}

/** A deletion of a job or a document that keeps failing ends FAILED with the reason. */
export function deletionFailed<T>(_record: T, reason: string) {
  return change({ to: "FAILED", from: DELETION_STATUSES, set: { error: `deletion failed: ${reason}` } });
}

type Change<T> = (record: T, ...rest: never[]) => TransitionSpec;

/**
 * The repositories declare each lifecycle write as a pure change (what a unit test can check
 * against the lifecycle without a table) and export it applied: called with the record as read,
 * it writes the change and returns the record as written, or null when a condition no longer held.
 */
export function applied<T, Changes extends Record<string, Change<T>>>(
  target: (record: T) => Transitionable,
  parse: (item: Record<string, unknown>) => T,
  changes: Changes,
): { [K in keyof Changes]: (...args: Parameters<Changes[K]>) => Promise<T | null> } {
  const entries = Object.entries(changes).map(([name, change]) => [
    name,
    (record: T, ...rest: never[]) => transition<T>(target(record), change(record, ...rest), parse),
  ]);
  return Object.fromEntries(entries) as { [K in keyof Changes]: (...args: Parameters<Changes[K]>) => Promise<T | null> };
}
