import { httpHandler, ok } from "../../shared/http/handler.ts";
import { namespacePath } from "../../shared/domain/params.ts";
import { searchBody } from "../../shared/domain/search.ts";
import { search } from "../../shared/workflows/search.ts";

/** Semantic, keyword or hybrid search over one partition: the `x-tenant-id` tenant, or records without a tenant. */
export const handler = httpHandler(
  { path: namespacePath, tenant: true, namespace: "active", body: searchBody },
  async ({ namespace, tenantId, body }) => ok(await search(namespace, tenantId, body)),
);
