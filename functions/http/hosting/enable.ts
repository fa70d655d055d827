import { created, httpHandler } from "../../shared/http/handler.ts";
import { enableHosting } from "../../shared/workflows/hosted/hosting.ts";
import { namespacePath } from "../../shared/domain/params.ts";
import { hostingToWire } from "../../shared/domain/hosting.ts";

/** Enables hosting with its defaults. The body is ignored (the agentset SDK sends `{}`). */
export const handler = httpHandler({ path: namespacePath, namespace: "active" }, async ({ namespace }) =>
  created(hostingToWire(await enableHosting(namespace))),
);
