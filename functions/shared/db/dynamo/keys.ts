import { INDEX, LIST_SORT_KEY } from "./table-schema.ts";

/**
 * Every key of the single table is built here and nowhere else. Base-table keys give each entity its
 * own partition key (`<KIND>#<id>`); list indexes group records by collection, tenant and status so that a
 * page costs the same however large the namespace grows.
 */
export interface TableKey {
  PK: string;
  SK: string;
}

/**
 * The partition-key prefixes of the items the public hosted-page functions write: their IAM policies
 * allow writes only to partition keys starting with these (`dynamodb:LeadingKeys`, lib/constructs/app-function.ts).
 */
export const OWNED_ITEM_PREFIXES = { rateWindow: "RATE#", signIn: "SIGNIN#", serviceSecret: "SECRET#" } as const;
export type OwnedItem = keyof typeof OWNED_ITEM_PREFIXES;

export const keys = {
  organization: (organizationId: string): TableKey => ({ PK: `ORG#${organizationId}`, SK: "ORG" }),
  organizationName: (name: string): TableKey => ({ PK: `ORGNAME#${name}`, SK: "ORGNAME" }),
  apiKey: (keyHash: string): TableKey => ({ PK: `APIKEY#${keyHash}`, SK: "APIKEY" }),
  namespace: (namespaceId: string): TableKey => ({ PK: `NS#${namespaceId}`, SK: "NS" }),
  namespaceSlug: (organizationId: string, slug: string): TableKey => ({
    PK: `ORG#${organizationId}#NSSLUG#${slug}`,
    SK: "NSSLUG",
  }),
  hosting: (namespaceId: string): TableKey => ({ PK: `NS#${namespaceId}`, SK: "HOSTING" }),
  hostingSlug: (slug: string): TableKey => ({ PK: `HOSTINGSLUG#${slug}`, SK: "HOSTINGSLUG" }),
  ingestJob: (jobId: string): TableKey => ({ PK: `JOB#${jobId}`, SK: "JOB" }),
  document: (documentId: string): TableKey => ({ PK: `DOC#${documentId}`, SK: "DOC" }),
  externalId: (namespaceId: string, externalId: string): TableKey => ({
    PK: `NS#${namespaceId}#EXTID#${externalId}`,
    SK: "EXTID",
  }),
  /** One per document built from an uploaded file: the file is deleted only when none remain. */
  uploadReference: (objectKey: string, documentId: string): TableKey => ({ PK: `UPLOAD#${objectKey}`, SK: `DOC#${documentId}` }),
  uploadReferenceGroup: (objectKey: string): string => `UPLOAD#${objectKey}`,
  /**
   * Where a chunk text's vector can be found in one vector partition (embedding reuse): one item per
   * (namespace, tenant, model, dimension, text hash). Spread over 256 partition keys by the hash, so a
   * bulk ingest does not write one hot partition.
   */
  embeddingPointer: (space: { namespaceId: string; tenantId: string | null; model: string; dimension: number }, textHash: string): TableKey => ({
    PK: `NS#${space.namespaceId}#EMB#${textHash.slice(0, 2)}`,
    SK: `${space.tenantId ?? "-"}#${space.model}#${space.dimension}#${textHash}`,
  }),
  /** Requests counted in one fixed window of one limit (a hosted page, a visitor of it); expires with TTL. */
  rateWindow: (limitName: string, windowStart: number): TableKey => ({ PK: `${OWNED_ITEM_PREFIXES.rateWindow}${limitName}#${windowStart}`, SK: "RATE" }),
  /** A one-time sign-in link of a protected hosted page, by the SHA-256 of its token; expires with TTL. */
  signInToken: (tokenHash: string): TableKey => ({ PK: `${OWNED_ITEM_PREFIXES.signIn}${tokenHash}`, SK: "SIGNIN" }),
  /** The sign-in link pending for one address of one page (by the address's SHA-256); expires with the link. */
  pendingSignIn: (namespaceId: string, addressHash: string): TableKey => ({ PK: `${OWNED_ITEM_PREFIXES.signIn}PENDING#${namespaceId}#${addressHash}`, SK: "PENDING" }),
  /** A record that holds a secret the service generates for itself (for example the cursor key). */
  serviceSecret: (name: string): TableKey => ({ PK: `${OWNED_ITEM_PREFIXES.serviceSecret}${name}`, SK: "SECRET" }),
};

export function listSortKey(createdAt: string, id: string): string {
  return `${createdAt}#${id}`;
}

/** The list-index group of one organization's namespaces or API keys. */
export function organizationListGroup(collection: "NAMESPACES" | "APIKEYS", organizationId: string): string {
  return `ORG#${organizationId}#${collection}`;
}

/** Index attributes of an organization-level record: namespaces and API keys of one organization. */
export function organizationListKeys(collection: "NAMESPACES" | "APIKEYS", organizationId: string, createdAt: string, id: string) {
  return { [INDEX.collection.partitionKey]: organizationListGroup(collection, organizationId), [LIST_SORT_KEY]: listSortKey(createdAt, id) };
}

export const ALL_ORGANIZATIONS_GROUP = "ORGS";

export function allOrganizationsListKeys(createdAt: string, id: string) {
  return { [INDEX.collection.partitionKey]: ALL_ORGANIZATIONS_GROUP, [LIST_SORT_KEY]: listSortKey(createdAt, id) };
}

export interface ListTarget {
  collection: "JOBS" | "DOCS";
  namespaceId: string;
  tenantId: string | null;
  status: string | null;
}

/** Group (partition-key value) of one list index for a list target; `null` when the target does not use that index. */
export function listGroup(index: "collection" | "tenant" | "status" | "tenantStatus", target: ListTarget): string | null {
  const base = `NS#${target.namespaceId}#${target.collection}`;
  switch (index) {
    case "collection":
      return base;
    case "tenant":
      return target.tenantId === null ? null : `${base}#T#${target.tenantId}`;
    case "status":
      return target.status === null ? null : `${base}#S#${target.status}`;
    case "tenantStatus":
      return target.tenantId === null || target.status === null ? null : `${base}#T#${target.tenantId}#S#${target.status}`;
  }
}

/** The collection-index group of every job, or every document, of a namespace. */
export function namespaceListGroup(collection: "JOBS" | "DOCS", namespaceId: string): string {
  return listGroup("collection", { collection, namespaceId, tenantId: null, status: null })!;
}

export function parentGroup(jobId: string): string {
  return `JOB#${jobId}#DOCS`;
}

/** The embedding pointers that lead to one document's vectors, on the parent index. */
export function embeddingPointersGroup(documentId: string): string {
  return `DOC#${documentId}#EMB`;
}

/**
 * All list-index attributes of a job or document. Status-bearing groups change with the status,
 * so every status write goes through this function too.
 */
export function listIndexAttributes(
  collection: "JOBS" | "DOCS",
  record: { namespaceId: string; tenantId: string | null; status: string; createdAt: string; id: string; ingestJobId?: string },
): Record<string, string> {
  const target: ListTarget = { collection, namespaceId: record.namespaceId, tenantId: record.tenantId, status: record.status };
  const attributes: Record<string, string> = { [LIST_SORT_KEY]: listSortKey(record.createdAt, record.id) };
  for (const index of ["collection", "tenant", "status", "tenantStatus"] as const) {
    const group = listGroup(index, target);
    if (group !== null) attributes[INDEX[index].partitionKey] = group;
  }
  if (record.ingestJobId) attributes[INDEX.parent.partitionKey] = parentGroup(record.ingestJobId);
  return attributes;
}
