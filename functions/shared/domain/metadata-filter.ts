import * as z from "../platform/zod.ts";

/**
 * Mongo-style metadata filters for search: the operator set S3 Vectors evaluates natively, so the
 * embedded store (local mode) and the deployed store accept and answer exactly the same filters.
 * Anything outside that set is refused at validation time (422) instead of failing deep inside a
 * store, which is what the upstream service does with `$not`, `$regex` and friends.
 */

/** A metadata value as stored with a chunk and compared by filters. */
export type MetadataValue = string | number | boolean | string[];

export type FilterScalar = string | number | boolean;

export interface FieldOperators {
  $eq?: FilterScalar;
  $ne?: FilterScalar;
  $gt?: number;
  $gte?: number;
  $lt?: number;
  $lte?: number;
  $in?: FilterScalar[];
  $nin?: FilterScalar[];
  $exists?: boolean;
}

/** A bare scalar is `$eq`; a bare array is `$in` (as upstream documents it). */
export type FieldCondition = FilterScalar | FilterScalar[] | FieldOperators;

export interface MetadataFilter {
  $and?: MetadataFilter[];
  $or?: MetadataFilter[];
  [field: string]: FieldCondition | MetadataFilter[] | undefined;
}

type Metadata = Readonly<Record<string, string | number | boolean | readonly string[] | undefined>>;

export const MAX_FILTER_DEPTH = 8;
export const MAX_FILTER_CONDITIONS = 64;

const FIELD_NAME = /^[A-Za-z0-9_.-]{1,64}$/;
const COMPARISONS = ["$eq", "$ne", "$gt", "$gte", "$lt", "$lte", "$in", "$nin", "$exists"] as const;
const LOGICAL = ["$and", "$or"] as const;
type Comparison = (typeof COMPARISONS)[number];
const SUPPORTED = [...COMPARISONS, ...LOGICAL].join(", ");

function isComparison(key: string): key is Comparison {
  return (COMPARISONS as readonly string[]).includes(key);
}

function isLogical(key: string): key is (typeof LOGICAL)[number] {
  return (LOGICAL as readonly string[]).includes(key);
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isScalar(value: unknown): value is FilterScalar {
  return typeof value === "string" || typeof value === "boolean" || (typeof value === "number" && Number.isFinite(value));
}

type Path = (string | number)[];
interface Issue {
  path: Path;
  message: string;
}

/** Walks a filter, collecting problems with the path of each; counts conditions as it goes. */
class FilterValidator {
  readonly issues: Issue[] = [];
  conditions = 0;

  private fail(path: Path, message: string): void {
    // One bad filter can produce many issues; a handful is enough to fix it.
    if (this.issues.length < 5) this.issues.push({ path, message });
  }

  filter(value: unknown, path: Path, depth: number): void {
    if (!isPlainObject(value)) {
      this.fail(path, 'must be an object of conditions, such as {"field": "value"}');
      return;
    }
    if (depth > MAX_FILTER_DEPTH) {
      this.fail(path, `conditions are nested more than ${MAX_FILTER_DEPTH} levels deep`);
      return;
    }
    for (const [key, child] of Object.entries(value)) {
      const at = [...path, key];
      if (isLogical(key)) this.logical(key, child, at, depth);
      else if (isComparison(key)) this.fail(at, `${key} must be applied to a field, as {"field": {"${key}": ...}}`);
      else if (key.startsWith("$")) this.fail(at, `unsupported operator ${key}; supported: ${SUPPORTED}`);
      else if (!FIELD_NAME.test(key)) this.fail(at, 'field names must be 1 to 64 letters, digits, "_", "." or "-"');
      else this.field(child, at);
    }
  }

  private logical(operator: string, value: unknown, path: Path, depth: number): void {
    if (!Array.isArray(value) || value.length === 0) {
      this.fail(path, `${operator} needs a non-empty array of conditions`);
      return;
    }
    value.forEach((child, index) => this.filter(child, [...path, index], depth + 1));
  }

  private field(value: unknown, path: Path): void {
    if (value === null || value === undefined) {
      this.fail(path, "null is not a supported value; use {\"$exists\": false} to match a missing field");
    } else if (isScalar(value)) {
      this.conditions++;
    } else if (Array.isArray(value)) {
      this.list("$in", value, path);
    } else if (isPlainObject(value)) {
      const entries = Object.entries(value);
      if (entries.length === 0) this.fail(path, `needs at least one operator (${COMPARISONS.join(", ")})`);
      for (const [operator, operand] of entries) this.operator(operator, operand, [...path, operator]);
    } else {
      this.fail(path, "must be a string, number, boolean, array or operator object");
    }
  }

  private operator(operator: string, operand: unknown, path: Path): void {
    if (isLogical(operator)) {
      this.fail(path, `${operator} combines conditions and cannot be applied to a field; put it at the top level`);
      return;
    }
    if (!operator.startsWith("$")) {
      this.fail(path, 'nested objects are not supported; name nested fields with dots ("a.b") and compare with an operator');
      return;
    }
    if (!isComparison(operator)) {
      this.fail(path, `unsupported operator ${operator}; supported: ${SUPPORTED}`);
      return;
    }
    switch (operator) {
      case "$eq":
      case "$ne":
        if (isScalar(operand)) this.conditions++;
        else this.fail(path, `${operator} needs a string, number or boolean`);
        return;
      case "$gt":
      case "$gte":
      case "$lt":
      case "$lte":
        // S3 Vectors compares only numbers; refusing strings here keeps both backends identical.
        if (typeof operand === "number" && Number.isFinite(operand)) this.conditions++;
        else this.fail(path, `${operator} needs a number`);
        return;
      case "$in":
      case "$nin":
        this.list(operator, operand, path);
        return;
      case "$exists":
        if (typeof operand === "boolean") this.conditions++;
        else this.fail(path, "$exists needs true or false");
        return;
    }
  }

  private list(operator: "$in" | "$nin", operand: unknown, path: Path): void {
    if (Array.isArray(operand) && operand.length > 0 && operand.every(isScalar)) this.conditions++;
    else this.fail(path, `${operator} needs a non-empty array of strings, numbers or booleans`);
  }
}

/**
 * Validates a search filter. Issue paths point at the offending key, relative to where the schema
 * sits (inside a body schema they start with "filter"), so callers can answer 422 with a message
 * that names it.
 */
export const metadataFilter: z.ZodMiniType<MetadataFilter, unknown> = z.pipe(
  z.unknown().check(
    z.superRefine((value, ctx) => {
      const validator = new FilterValidator();
      validator.filter(value, [], 1);
      for (const issue of validator.issues) ctx.addIssue({ code: "custom", message: issue.message, path: issue.path });
      if (validator.issues.length === 0 && validator.conditions > MAX_FILTER_CONDITIONS) {
        ctx.addIssue({ code: "custom", message: `a filter may hold at most ${MAX_FILTER_CONDITIONS} conditions` });
      }
    }),
  ),
  z.transform((value) => value as MetadataFilter),
);

function sameScalar(stored: unknown, wanted: FilterScalar): boolean {
  return stored === wanted;
}

/** For array-valued metadata, a value comparison holds when it holds for any element. */
function anyValue(stored: Metadata[string], test: (value: string | number | boolean) => boolean): boolean {
  if (stored === undefined) return false;
  if (Array.isArray(stored)) return stored.some((element) => test(element));
  return test(stored as string | number | boolean);
}

function matchesOperator(stored: Metadata[string], operator: string, operand: unknown): boolean {
  switch (operator) {
    case "$eq":
      return anyValue(stored, (value) => sameScalar(value, operand as FilterScalar));
    case "$ne":
      // A missing field is "not equal", as in MongoDB.
      return !anyValue(stored, (value) => sameScalar(value, operand as FilterScalar));
    case "$gt":
      return anyValue(stored, (value) => typeof value === "number" && value > (operand as number));
    case "$gte":
      return anyValue(stored, (value) => typeof value === "number" && value >= (operand as number));
    case "$lt":
      return anyValue(stored, (value) => typeof value === "number" && value < (operand as number));
    case "$lte":
      return anyValue(stored, (value) => typeof value === "number" && value <= (operand as number));
    case "$in":
      return anyValue(stored, (value) => (operand as FilterScalar[]).some((wanted) => sameScalar(value, wanted)));
    case "$nin":
      return !anyValue(stored, (value) => (operand as FilterScalar[]).some((wanted) => sameScalar(value, wanted)));
    case "$exists":
      return (stored !== undefined) === operand;
    default:
      return false;
  }
}

function matchesField(stored: Metadata[string], condition: FieldCondition): boolean {
  if (Array.isArray(condition)) return matchesOperator(stored, "$in", condition);
  if (isPlainObject(condition)) {
    for (const [operator, operand] of Object.entries(condition)) {
      if (!matchesOperator(stored, operator, operand)) return false;
    }
    return true;
  }
  return matchesOperator(stored, "$eq", condition);
}

// Inherited properties ("constructor", "__proto__") are valid field names but never metadata.
function ownValue(metadata: Metadata, key: string): Metadata[string] {
  return Object.hasOwn(metadata, key) ? metadata[key] : undefined;
}

/**
 * Evaluates a validated filter against one record's metadata. Comparisons are strict by type (the
 * string "1" is not the number 1). Array-valued metadata (string[]) matches `$eq`/`$in` when any
 * element does and `$ne`/`$nin` when no element does; a missing field matches `$ne`, `$nin` and
 * `$exists: false` only. Keys of one object, and operators of one field, must all hold.
 */
export function matchesFilter(metadata: Metadata, filter: MetadataFilter): boolean {
  for (const [key, condition] of Object.entries(filter)) {
    if (condition === undefined) continue;
    if (key === "$and") {
      if (!(condition as MetadataFilter[]).every((child) => matchesFilter(metadata, child))) return false;
    } else if (key === "$or") {
      if (!(condition as MetadataFilter[]).some((child) => matchesFilter(metadata, child))) return false;
    } else if (!matchesField(ownValue(metadata, key), condition as FieldCondition)) {
      return false;
    }
  }
  return true;
}

