import { created, httpHandler } from "../../shared/http/handler.ts";
import { createNamespace } from "../../shared/workflows/namespaces.ts";
import { createNamespaceBody, namespaceToWire } from "../../shared/domain/namespace.ts";

export const handler = httpHandler({ body: createNamespaceBody }, async ({ auth, body }) => {
  const namespace = await createNamespace(auth.organizationId, body);
  return created(namespaceToWire(namespace));
});
