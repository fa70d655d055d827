import { httpHandler, ok } from "../../shared/http/handler.ts";
import { listNamespaces } from "../../shared/workflows/namespaces.ts";
import { namespaceToWire } from "../../shared/domain/namespace.ts";

/** listNamespaces: every namespace of the caller's organization, oldest first. */
export const handler = httpHandler({}, async ({ auth }) => {
  const namespaces = await listNamespaces(auth.organizationId);
  return ok(namespaces.map(namespaceToWire));
});
