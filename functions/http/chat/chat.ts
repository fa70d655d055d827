import { httpHandler, ok } from "../../shared/http/handler.ts";
import * as route from "./chat.route.ts";
import type { Wire } from "../../shared/domain/wire/schemas.ts";
import { UI_MESSAGE_STREAM_HEADERS, uiMessageStream } from "../../shared/http/ui-message-stream.ts";
import { answerCaller, wholeAnswer } from "../../shared/workflows/chat.ts";

/**
 * A retrieval-augmented answer over one partition (the `x-tenant-id` tenant, or records without a
 * tenant), streamed as the AI SDK's UI message stream, or with `stream: false` as one JSON answer.
 */
export const handler = httpHandler(
  route.chat,
  async ({ namespace, tenantId, body }) => {
    const answer = await answerCaller(namespace, tenantId, body);
    const headers = { "x-chat-model": answer.model, ...(answer.rerank ? { "x-rerank": answer.rerank.status } : {}) };
    if (body.stream) return { status: 200, data: null, stream: uiMessageStream(answer, namespace.id), headers: { ...UI_MESSAGE_STREAM_HEADERS, ...headers } };
    const whole = await wholeAnswer(answer, namespace.id);
    return { ...ok<Wire<"ChatAnswer">>({ ...whole, model: answer.model, sources: answer.sources }), headers };
  },
);
