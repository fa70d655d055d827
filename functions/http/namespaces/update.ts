import { httpHandler, ok } from "../../shared/http/handler.ts";
import { updateNamespace } from "../../shared/workflows/namespaces.ts";
import { namespacePath } from "../../shared/domain/params.ts";
import { namespaceToWire, updateNamespaceBody } from "../../shared/domain/namespace.ts";

/** updateNamespace (PATCH, and PUT as an alias): a body that changes nothing returns the namespace unchanged. */
export const handler = httpHandler(
  { path: namespacePath, namespace: "active", body: updateNamespaceBody },
  async ({ namespace, body }) => ok(namespaceToWire(await updateNamespace(namespace, body))),
);
