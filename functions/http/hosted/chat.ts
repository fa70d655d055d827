import { httpHandler } from "../../shared/http/handler.ts";
import * as route from "./chat.route.ts";
import { admitVisit } from "../../shared/http/hosted/request.ts";
import { UI_MESSAGE_STREAM_HEADERS, uiMessageStream } from "../../shared/http/ui-message-stream.ts";
import { answerVisitor } from "../../shared/workflows/hosted/chat.ts";

/** The chat tab of a hosted page: untenanted records only, answered as a stream, limited per visitor and per page. */
export const handler = httpHandler(route.chatHostedPage, async ({ path, body, event }) => {
  const page = await admitVisit(path.slug, event, "chat");
  const answer = await answerVisitor(page, body.messages);
  return { status: 200, data: null, stream: uiMessageStream(answer, page.namespace.id), headers: UI_MESSAGE_STREAM_HEADERS };
});
