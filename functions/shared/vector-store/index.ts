import { config } from "../platform/env.ts";
import { embeddedVectorStore } from "./embedded.ts";
import { S3VectorsStore } from "./s3-vectors.ts";
import type { VectorStore } from "./types.ts";


let s3VectorsStore: S3VectorsStore | undefined;

/**
 * The store of this deployment: S3 Vectors in AWS, the in-process embedded store in local mode.
 * Chosen on each call from the environment, like the rest of `config`, so a test can switch it.
 */
export function vectorStore(): VectorStore {
  const backend = config.vectorStoreBackend();
  switch (backend) {
    case "embedded":
      return embeddedVectorStore();
    case "s3vectors":
      // The store imports the S3 Vectors SDK on its first request (loadS3VectorsSdk), so choosing
      // it here costs nothing at cold start.
      s3VectorsStore ??= new S3VectorsStore({ vectorBucketName: config.vectorBucketName() });
      return s3VectorsStore;
    default:
      throw new Error(`VECTOR_STORE_BACKEND must be "embedded" or "s3vectors", not "${backend}"`);
  }
}
