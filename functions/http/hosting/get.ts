import { httpHandler, ok } from "../../shared/http/handler.ts";
import { requireHosting } from "../../shared/workflows/hosted/hosting.ts";
import { namespacePath } from "../../shared/domain/params.ts";
import { hostingToWire } from "../../shared/domain/hosting.ts";

export const handler = httpHandler({ path: namespacePath, namespace: "any" }, async ({ namespace }) =>
  ok(hostingToWire(await requireHosting(namespace.id))),
);
