import { created, httpHandler } from "../../shared/http/handler.ts";
import * as route from "./create.route.ts";
import { createNamespace } from "../../shared/workflows/namespaces.ts";
import { namespaceToWire } from "../../shared/domain/wire/namespace.ts";

export const handler = httpHandler(route.createNamespace, async ({ auth, body }) => {
  const namespace = await createNamespace(auth.organizationId, body);
  return created(namespaceToWire(namespace));
});
