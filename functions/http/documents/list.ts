import { httpHandler, ok } from "../../shared/http.ts";
import { toRecord } from "../../shared/db/items.ts";
import { listPage } from "../../shared/db/pager.ts";
import type { DocumentRecord } from "../../shared/domain/document.ts";
import { documentListQuery } from "../../shared/domain/list-query.ts";
import { namespacePath } from "../../shared/domain/params.ts";
import { documentsToWire } from "../../shared/jobs/wire.ts";

/** Documents of a namespace, or of one ingest job with `ingestJobId`; paginated like E5. */
export const handler = httpHandler(
  { path: namespacePath, tenant: true, namespace: "any", query: documentListQuery },
  async ({ namespace, tenantId, query }) => {
    const page = await listPage({
      collection: "DOCS",
      namespaceId: namespace.id,
      tenantId,
      statuses: query.statuses,
      parentJobId: query.ingestJobId ?? null,
      order: query.order,
      direction: query.cursorDirection,
      cursor: query.cursor ?? null,
      perPage: query.perPage,
    });
    const records = page.items.map((item) => toRecord<DocumentRecord>(item)).filter((record) => record.namespaceId === namespace.id);
    return ok(await documentsToWire(records), { pagination: page.pagination });
  },
);
