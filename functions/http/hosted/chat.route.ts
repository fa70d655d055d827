import type { RouteContract } from "../../shared/http/contract.ts";
import { hostedChatBody, hostedSlugPath } from "../../shared/domain/hosted/page.ts";

export const chatHostedPage = {
  operationId: "chatHostedPage",
  method: "POST",
  path: "/hosted/{slug}/chat",
  summary: "The chat tab of a hosted page, streamed (no key)",
  tag: "Hosted pages",
  description:
    "Answers the conversation's last question from the namespace's records without a tenant, retrieved as the search tab does, with the hosting's `systemPrompt` and `llmConfig` (else the deployment's default model), as the AI SDK's UI message stream (see `chat`). 403 for a protected page without a valid session cookie; 422 naming `llmConfig` when no model is configured or none is reachable at its address; 429 (with `Retry-After`) past 10 questions a minute per visitor or 120 per page.",
  request: { public: true, path: hostedSlugPath, body: hostedChatBody, stream: true },
  response: { status: 200, raw: "text/event-stream" },
} as const satisfies RouteContract;
