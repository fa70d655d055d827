/**
 * A module imported on first use, never at module load: the large SDK clients (S3 Vectors, Bedrock)
 * are needed by few code paths and not at cold start. The import is shared by concurrent callers; a
 * failed one is not kept, so the next call tries again. How the dynamic import is bundled is decided
 * in lib/bundling.ts.
 */
export function lazyImport<T>(load: () => Promise<T>): () => Promise<T> {
  let pending: Promise<T> | undefined;
  return () => {
    pending ??= load().catch((error: unknown) => {
      pending = undefined;
      throw error;
    });
    return pending;
  };
}
