import { SIGN_IN_LINK_SECONDS } from "../../shared/domain/hosted/access.ts";
import { HttpError } from "../../shared/http/error-mapping.ts";
import { httpHandler, ok } from "../../shared/http/handler.ts";
import * as route from "./sign-in.route.ts";
import { pageUrl, visitorAddress } from "../../shared/http/hosted/request.ts";
import { publishedPage } from "../../shared/workflows/hosted/page.ts";
import { requestSignIn } from "../../shared/workflows/hosted/sign-in.ts";

/** Queues a protected page's sign-in link for the address; the answer is the same for any address. */
export const handler = httpHandler(route.requestHostedPageSignIn, async ({ path, body, event }) => {
  const page = await publishedPage(path.slug);
  const result = await requestSignIn(page, body.email, visitorAddress(event), pageUrl(event, path.slug));
  if (result.limitedForSeconds !== undefined) {
    throw new HttpError("rate_limit_exceeded", "Too many sign-in requests; try again shortly.", { "retry-after": String(result.limitedForSeconds) });
  }
  return ok({ message: `If this address may visit the page, a sign-in link is on its way. It works once, within ${SIGN_IN_LINK_SECONDS / 60} minutes.` });
});
