import { httpHandler, ok } from "../../shared/http/handler.ts";
import * as route from "./list.route.ts";
import { listNamespaces } from "../../shared/workflows/namespaces.ts";
import { namespaceToWire } from "../../shared/domain/wire/namespace.ts";

/** listNamespaces: every namespace of the caller's organization, oldest first. */
export const handler = httpHandler(route.listNamespaces, async ({ auth }) => {
  const namespaces = await listNamespaces(auth.organizationId);
  return ok(namespaces.map(namespaceToWire));
});
