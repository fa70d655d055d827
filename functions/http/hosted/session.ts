import { forbidden } from "../../shared/domain/errors.ts";
import { headerValue, httpHandler } from "../../shared/http/handler.ts";
import * as route from "./session.route.ts";
import { html } from "../../shared/http/html.ts";
import { pagePath, pageUrl, sessionCookie } from "../../shared/http/hosted/request.ts";
import { publishedPage } from "../../shared/workflows/hosted/page.ts";
import { completeSignIn } from "../../shared/workflows/hosted/sign-in.ts";

/**
 * Signing in (the button of the e-mailed link's page posts its token here): uses the token up, sets
 * the session cookie and sends the visitor to the page. A post from another site is refused, so no
 * one can sign a visitor in under an address of theirs.
 */
export const handler = httpHandler(route.completeHostedPageSignIn, async ({ path, body, event }) => {
  const origin = headerValue(event, "origin");
  if (origin !== undefined && origin !== new URL(pageUrl(event, path.slug)).origin) throw forbidden("Sign in from the page the e-mailed link opens.");
  const page = await publishedPage(path.slug);
  const session = await completeSignIn(page, body.token);
  const target = pagePath(event, path.slug);
  return {
    status: 303,
    data: null,
    raw: html`<!doctype html><title>Signed in</title><p>Signed in. <a href="${target}">Continue to the page</a>.</p>`.value,
    headers: {
      "content-type": "text/html; charset=utf-8",
      location: target,
      "set-cookie": sessionCookie(event, path.slug, session.value, session.maxAgeSeconds),
    },
  };
});
