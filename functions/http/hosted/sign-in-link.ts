import { randomBytes } from "node:crypto";
import { httpHandler } from "../../shared/http/handler.ts";
import * as route from "./sign-in-link.route.ts";
import { renderSignInConfirmation, signInConfirmationHeaders } from "../../shared/http/hosted/page.ts";
import { publishedPage } from "../../shared/workflows/hosted/page.ts";

/** The e-mailed sign-in link: a page whose button signs in. Opening it (or a mail scanner fetching it) uses nothing up. */
export const handler = httpHandler(route.openHostedPageSignInLink, async ({ path, query }) => {
  const page = await publishedPage(path.slug);
  const nonce = randomBytes(16).toString("base64");
  return { status: 200, data: null, raw: renderSignInConfirmation(page.hosting, nonce, query.token), headers: signInConfirmationHeaders(nonce) };
});
