import { httpHandler, ok } from "../../shared/http/handler.ts";
import { updateHosting } from "../../shared/workflows/hosted/hosting.ts";
import { namespacePath } from "../../shared/domain/params.ts";
import { hostingToWire, updateHostingBody } from "../../shared/domain/hosting.ts";
import { assertChatModelAllowed } from "../../shared/domain/llm-config.ts";

export const handler = httpHandler({ path: namespacePath, namespace: "active", body: updateHostingBody }, async ({ namespace, body }) => {
  assertChatModelAllowed(body.llmConfig ?? undefined);
  return ok(hostingToWire(await updateHosting(namespace.id, body)));
});
