import type { VectorStore } from "./types.ts";

/**
 * The vector stores, by the id `VECTOR_STORE_BACKEND` names: the module that implements the store
 * (loaded on first use), the IAM actions each store operation needs and the environment it reads.
 * The CDK grants a function the actions of the operations it declares (`vectors` in lib/routes.ts)
 * and sets that environment, so a store's permissions live next to its code. Adding a store is one
 * module exporting `create` (every module a port loads does), returning a `VectorStore`, and one row here.
 */

/** What a function does with vectors; its grants follow from these. */
export type VectorOperation = "count" | "query" | "write" | "read" | "delete" | "list";

export interface VectorStoreModule {
  create(): VectorStore;
}

export interface VectorStoreRow {
  readonly label: string;
  /** Actions per operation, on the store's bucket and its indexes; none for a store inside the process. */
  readonly iamActions: Readonly<Record<VectorOperation, readonly string[]>>;
  /** Environment variables the store reads besides VECTOR_STORE_BACKEND. */
  readonly environment: readonly string[];
  readonly load: () => Promise<VectorStoreModule>;
}

export const VECTOR_STORES = {
  s3vectors: {
    label: "Amazon S3 Vectors",
    iamActions: {
      // Admission against the index quota counts indexes and looks one up (vector-store/quota.ts).
      count: ["s3vectors:ListIndexes", "s3vectors:GetIndex"],
      // QueryVectors needs GetVectors as well as soon as it filters on metadata or returns it.
      query: ["s3vectors:QueryVectors", "s3vectors:GetVectors"],
      // Writing creates a partition's index (and its namespace's registry entry) on first use, and
      // the vector bucket of its slot on that bucket's first index (no tenant ceiling).
      write: ["s3vectors:PutVectors", "s3vectors:CreateIndex", "s3vectors:CreateVectorBucket"],
      // A re-ingest reuses the previous run's vectors of unchanged chunks (embedding reuse).
      read: ["s3vectors:GetVectors"],
      // Dropping a partition deletes its index and its registry entry, and reads what remains.
      delete: ["s3vectors:DeleteVectors", "s3vectors:DeleteIndex", "s3vectors:ListVectors"],
      list: ["s3vectors:ListVectors"],
    },
    environment: ["VECTOR_BUCKET_NAME"],
    // Typed as the module interface rather than inferred from the import (the modules import types back).
    load: (): Promise<VectorStoreModule> => import("./s3-vectors.ts"),
  },
  embedded: {
    label: "in-process exact search (local stack and tests)",
    iamActions: { count: [], query: [], write: [], read: [], delete: [], list: [] },
    environment: [],
    // Deployed bundles leave it out (lib/bundling.ts DEPLOYED_BUNDLE_DEFINE): only the local stack runs it.
    load:
      process.env.KIS_DEPLOYED_BUNDLE === "true"
        ? () => Promise.reject(new Error("the embedded vector store is not part of deployed bundles; set VECTOR_STORE_BACKEND=s3vectors"))
        : (): Promise<VectorStoreModule> => import("./embedded.ts"),
  },
} as const satisfies Record<string, VectorStoreRow>;

export type VectorStoreId = keyof typeof VECTOR_STORES;

export function isVectorStoreId(value: string): value is VectorStoreId {
  return Object.hasOwn(VECTOR_STORES, value);
}
