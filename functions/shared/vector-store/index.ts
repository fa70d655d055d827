import { config } from "../platform/env.ts";
import { isVectorStoreId, VECTOR_STORES, type VectorStoreId } from "./registry.ts";
import type { VectorStore } from "./types.ts";

const stores = new Map<VectorStoreId, VectorStore>();

/**
 * The store of this deployment (S3 Vectors in AWS, the in-process store in local mode), from its
 * registry row, one per process. Chosen on each call from the environment, like the rest of
 * `config`, so a test can switch it.
 */
export async function vectorStore(): Promise<VectorStore> {
  const backend = config.vectorStoreBackend();
  if (!isVectorStoreId(backend)) {
    throw new Error(`VECTOR_STORE_BACKEND must be one of ${Object.keys(VECTOR_STORES).map((id) => `"${id}"`).join(", ")}, not "${backend}"`);
  }
  let store = stores.get(backend);
  if (!store) {
    store = (await VECTOR_STORES[backend].load()).create();
    stores.set(backend, store);
  }
  return store;
}
