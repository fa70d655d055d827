import { sessionQuery } from "../../shared/domain/hosted-access.ts";
import { hostedSlugPath } from "../../shared/domain/hosted-page.ts";
import { httpHandler } from "../../shared/http/handler.ts";
import { escapeHtml } from "../../shared/http/html.ts";
import { pagePath, sessionCookie } from "../../shared/http/hosted-request.ts";
import { completeSignIn, publishedPage } from "../../shared/workflows/hosted.ts";

/** The sign-in link: uses up its token, sets the session cookie and sends the visitor to the page. */
export const handler = httpHandler({ public: true, path: hostedSlugPath, query: sessionQuery }, async ({ path, query, event }) => {
  const page = await publishedPage(path.slug);
  const session = await completeSignIn(page, query.token);
  const target = pagePath(event, path.slug);
  return {
    status: 303,
    data: null,
    raw: `<!doctype html><title>Signed in</title><p>Signed in. <a href="${escapeHtml(target)}">Continue to the page</a>.</p>`,
    headers: {
      "content-type": "text/html; charset=utf-8",
      location: target,
      "set-cookie": sessionCookie(event, path.slug, session.value, session.maxAgeSeconds),
    },
  };
});
