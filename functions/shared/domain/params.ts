import * as z from "../platform/zod.ts";
import { ID_PREFIX, type IdKind, isWellFormedId } from "../platform/ids.ts";
import { NAMESPACE_SLUG_PATTERN } from "./namespace.ts";

const LABEL: Record<IdKind, string> = {
  organization: "an organization",
  namespace: "a namespace",
  ingestJob: "an ingest job",
  document: "a document",
  apiKey: "an API key",
};

/** A tenant id, as the `x-tenant-id` header and the MCP tools' `tenantId` carry it. */
export const TENANT_PATTERN = /^[A-Za-z0-9]{1,64}$/;

/** A path id: the right prefix followed by URL-safe characters. */
export function idParam(kind: IdKind) {
  return z.string().check(
    z.refine((value) => isWellFormedId(kind, value), {
      message: `must be ${LABEL[kind]} id (${ID_PREFIX[kind]}...)`,
    }),
  );
}

/**
 * A namespace in a path: its id, or its slug (the agentset SDK's `namespaces.get(slug)` sends one).
 * Unambiguous, because ids start with `ns_` and a slug cannot hold an underscore.
 */
export function namespaceRefParam() {
  return z.string().check(
    z.refine((value) => isWellFormedId("namespace", value) || NAMESPACE_SLUG_PATTERN.test(value), {
      message: `must be a namespace id (${ID_PREFIX.namespace}...) or a namespace slug`,
    }),
  );
}

/** The path holds a namespace id (not a slug): what the namespace's own routes resolve through. */
export function isNamespaceId(value: string): boolean {
  return isWellFormedId("namespace", value);
}

export const namespacePath = z.object({ namespaceId: namespaceRefParam() });
export const jobPath = z.object({ namespaceId: namespaceRefParam(), jobId: idParam("ingestJob") });
export const documentPath = z.object({ namespaceId: namespaceRefParam(), documentId: idParam("document") });
