import { randomBytes } from "node:crypto";
import { httpHandler } from "../../shared/http/handler.ts";
import * as route from "./page.route.ts";
import { hostedPageHeaders, renderHostedPage, renderSignInPage } from "../../shared/http/hosted/page.ts";
import { sessionCookieOf } from "../../shared/http/hosted/request.ts";
import { isAdmitted, pageCanChat, publishedPage } from "../../shared/workflows/hosted/page.ts";

/**
 * A namespace's hosted page, public: read fresh on every request, so a deleted or moved page is gone
 * at once. A protected page shows a visitor without a session only its title and the sign-in form.
 */
export const handler = httpHandler(route.getHostedPage, async ({ path, event }) => {
  const page = await publishedPage(path.slug);
  const nonce = randomBytes(16).toString("base64");
  const html = (await isAdmitted(page, sessionCookieOf(event))) ? renderHostedPage(page.hosting, nonce, { canChat: pageCanChat(page.hosting) }) : renderSignInPage(page.hosting, nonce);
  return { status: 200, data: null, raw: html, headers: hostedPageHeaders(nonce) };
});
