import { httpHandler, ok } from "../../shared/http/handler.ts";
import { updateHosting } from "../../shared/workflows/hosting.ts";
import { namespacePath } from "../../shared/domain/params.ts";
import { hostingToWire, updateHostingBody } from "../../shared/domain/hosting.ts";

export const handler = httpHandler(
  { path: namespacePath, namespace: "active", body: updateHostingBody },
  async ({ namespace, body }) => ok(hostingToWire(await updateHosting(namespace.id, body))),
);
