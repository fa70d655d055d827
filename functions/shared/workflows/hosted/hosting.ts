/* Hosting settings as the hosting routes change them; handlers reach the table only through workflows. */
import { updateHosting as writeHostingUpdate } from "../../db/hosting.ts";
import type { HostingPatch, HostingRecord } from "../../domain/hosting.ts";
import { assertChatModelAllowed } from "../../domain/llm-config.ts";

export { deleteHosting, enableHosting, requireHosting } from "../../db/hosting.ts";

/** Applies a settings change; a chat model the deployment does not allow is refused (422) before anything is read or written. */
export async function updateHosting(namespaceId: string, patch: HostingPatch): Promise<HostingRecord> {
  assertChatModelAllowed(patch.llmConfig ?? undefined);
  return writeHostingUpdate(namespaceId, patch);
}
