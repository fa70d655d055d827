import { httpHandler, ok } from "../../shared/http/handler.ts";
import * as route from "./update.route.ts";
import { updateNamespace } from "../../shared/workflows/namespaces.ts";
import { namespaceToWire } from "../../shared/domain/wire/namespace.ts";

/** updateNamespace (PATCH, and PUT as an alias): a body that changes nothing returns the namespace unchanged. */
export const handler = httpHandler(
  route.updateNamespace,
  async ({ namespace, body }) => ok(namespaceToWire(await updateNamespace(namespace, body))),
);
