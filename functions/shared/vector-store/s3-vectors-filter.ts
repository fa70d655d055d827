import { type FilterScalar, isPlainObject, type MetadataFilter } from "../domain/metadata-filter.ts";

/** The JSON shape the S3 Vectors `filter` parameter takes. */
export type S3FilterValue = FilterScalar | S3FilterValue[] | S3VectorsFilter;
export interface S3VectorsFilter {
  [key: string]: S3FilterValue;
}

/** Null means "matches everything". */
function toS3Node(filter: MetadataFilter): S3VectorsFilter | null {
  const conditions: S3VectorsFilter[] = [];
  for (const [key, condition] of Object.entries(filter)) {
    if (condition === undefined) continue;
    if (key === "$and") {
      for (const child of condition as MetadataFilter[]) {
        const node = toS3Node(child);
        if (node) conditions.push(node);
      }
    } else if (key === "$or") {
      const nodes: S3VectorsFilter[] = [];
      let alwaysTrue = false;
      for (const child of condition as MetadataFilter[]) {
        const node = toS3Node(child);
        if (node) nodes.push(node);
        else alwaysTrue = true;
      }
      // An always-true branch makes the whole $or always true.
      if (alwaysTrue) continue;
      conditions.push(nodes.length === 1 ? nodes[0]! : { $or: nodes });
    } else if (Array.isArray(condition)) {
      conditions.push({ [key]: { $in: condition as FilterScalar[] } });
    } else if (isPlainObject(condition)) {
      for (const [operator, operand] of Object.entries(condition)) {
        conditions.push({ [key]: { [operator]: operand as S3FilterValue } });
      }
    } else {
      conditions.push({ [key]: { $eq: condition as FilterScalar } });
    }
  }
  if (conditions.length === 0) return null;
  return conditions.length === 1 ? conditions[0]! : { $and: conditions };
}

/**
 * The S3 Vectors form of a validated filter: same operators, with implicit equality spelled `$eq`,
 * bare arrays spelled `$in`, and every object holding exactly one condition (several are joined by
 * `$and`), the one shape the service documents for every operator. Undefined for a filter that
 * matches everything, since the service wants no filter rather than an empty one.
 */
export function toS3VectorsFilter(filter: MetadataFilter | undefined): S3VectorsFilter | undefined {
  if (!filter) return undefined;
  return toS3Node(filter) ?? undefined;
}
