import { httpHandler, ok } from "../../shared/http/handler.ts";
import { deleteHosting } from "../../shared/workflows/hosted/hosting.ts";
import { namespacePath } from "../../shared/domain/params.ts";
import { hostingToWire } from "../../shared/domain/hosting.ts";

/** deleteHosting: deletes the hosting configuration and returns it as it was, with 200 so the body survives. */
export const handler = httpHandler({ path: namespacePath, namespace: "any" }, async ({ namespace }) =>
  ok(hostingToWire(await deleteHosting(namespace.id))),
);
