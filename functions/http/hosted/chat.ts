import { hostedChatBody, hostedSlugPath } from "../../shared/domain/hosted-page.ts";
import { HttpError } from "../../shared/http/error-mapping.ts";
import { httpHandler } from "../../shared/http/handler.ts";
import { sessionCookieOf, visitorAddress } from "../../shared/http/hosted-request.ts";
import { UI_MESSAGE_STREAM_HEADERS, uiMessageStream } from "../../shared/http/ui-message-stream.ts";
import { assertAdmitted, countVisit, publishedPage } from "../../shared/workflows/hosted.ts";
import { answerVisitor } from "../../shared/workflows/hosted-chat.ts";

/** The chat tab of a hosted page: untenanted records only, answered as a stream, limited per visitor and per page. */
export const handler = httpHandler({ public: true, path: hostedSlugPath, body: hostedChatBody, stream: true }, async ({ path, body, event }) => {
  const page = await publishedPage(path.slug);
  await assertAdmitted(page, sessionCookieOf(event));
  const visit = await countVisit(path.slug, visitorAddress(event), "chat");
  if (!visit.allowed) {
    throw new HttpError("rate_limit_exceeded", "Too many questions on this page; try again shortly.", { "retry-after": String(visit.retryAfterSeconds) });
  }
  const answer = await answerVisitor(page, body.messages);
  return { status: 200, data: null, stream: uiMessageStream(answer, page.namespace.id), headers: UI_MESSAGE_STREAM_HEADERS };
});
