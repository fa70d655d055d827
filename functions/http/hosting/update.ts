import { httpHandler, ok } from "../../shared/http/handler.ts";
import * as route from "./update.route.ts";
import { updateHosting } from "../../shared/workflows/hosted/hosting.ts";
import { hostingToWire } from "../../shared/domain/wire/hosting.ts";
import { assertChatModelAllowed } from "../../shared/domain/llm-config.ts";

export const handler = httpHandler(route.updateHosting, async ({ namespace, body }) => {
  assertChatModelAllowed(body.llmConfig ?? undefined);
  return ok(hostingToWire(await updateHosting(namespace.id, body)));
});
