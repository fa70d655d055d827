import { httpHandler, ok } from "../../shared/http/handler.ts";
import { namespacePath } from "../../shared/domain/params.ts";
import { namespaceToWire } from "../../shared/domain/namespace.ts";

export const handler = httpHandler({ path: namespacePath, namespace: "any" }, async ({ namespace }) =>
  ok(namespaceToWire(namespace)),
);
