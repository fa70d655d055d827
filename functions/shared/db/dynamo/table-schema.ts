/**
 * The single table's key and index names. The CDK table and the data layer both read this module,
 * so the deployed table and the code that queries it cannot drift apart.
 *
 * Every list index sorts on the same attribute, `GSISK` = `<createdAt>#<id>`, which gives the
 * (createdAt, id) order the list endpoints promise.
 */
export const PARTITION_KEY = "PK";
export const SORT_KEY = "SK";
export const LIST_SORT_KEY = "GSISK";
export const TTL_ATTRIBUTE = "expiresAt";

export const INDEX = {
  /** One collection: namespaces of an org, jobs or documents of a namespace. */
  collection: { name: "GSI1", partitionKey: "GSI1PK" },
  /** The same, narrowed to one tenant. */
  tenant: { name: "GSI2", partitionKey: "GSI2PK" },
  /** The collection, narrowed to one status. */
  status: { name: "GSI3", partitionKey: "GSI3PK" },
  /** The collection, narrowed to one tenant and one status. */
  tenantStatus: { name: "GSI4", partitionKey: "GSI4PK" },
  /** Children of one parent: documents of an ingest job. */
  parent: { name: "GSI5", partitionKey: "GSI5PK" },
} as const;

export type IndexKey = keyof typeof INDEX;
export const ALL_INDEXES = Object.values(INDEX);
