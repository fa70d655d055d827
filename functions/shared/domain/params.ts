import * as z from "../platform/zod.ts";
import { ID_PREFIX, type IdKind, isWellFormedId } from "../platform/ids.ts";

const LABEL: Record<IdKind, string> = {
  organization: "an organization",
  namespace: "a namespace",
  ingestJob: "an ingest job",
  document: "a document",
  apiKey: "an API key",
};

/** A path id: the right prefix followed by URL-safe characters. */
export function idParam(kind: IdKind) {
  return z.string().check(
    z.refine((value) => isWellFormedId(kind, value), {
      message: `must be ${LABEL[kind]} id (${ID_PREFIX[kind]}...)`,
    }),
  );
}

export const namespacePath = z.object({ namespaceId: idParam("namespace") });
export const jobPath = z.object({ namespaceId: idParam("namespace"), jobId: idParam("ingestJob") });
export const documentPath = z.object({ namespaceId: idParam("namespace"), documentId: idParam("document") });
