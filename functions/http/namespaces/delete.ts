import { httpHandler, ok } from "../../shared/http/handler.ts";
import * as route from "./delete.route.ts";
import { namespaceToWire } from "../../shared/domain/wire/namespace.ts";
import { beginNamespaceDeletion } from "../../shared/workflows/deletion/requests.ts";

/**
 * Marks the namespace DELETING and queues the cascade. It stays listed, with that status, until
 * everything in it is gone; a second delete meanwhile is a 409.
 */
export const handler = httpHandler(route.deleteNamespace, async ({ namespace }) =>
  ok(namespaceToWire(await beginNamespaceDeletion(namespace))),
);
