import type { RouteContract } from "../../shared/http/contract.ts";
import { sessionQuery } from "../../shared/domain/hosted/access.ts";
import { hostedSlugPath } from "../../shared/domain/hosted/page.ts";

export const completeHostedPageSignIn = {
  operationId: "completeHostedPageSignIn",
  method: "POST",
  path: "/hosted/{slug}/session",
  summary: "Sign in with a link's token: sets the page's session cookie and redirects to the page (no key)",
  tag: "Hosted pages",
  description:
    "A form post (`application/x-www-form-urlencoded`, field `token`). Uses the token up. The cookie is HttpOnly, SameSite=Lax, Secure over HTTPS, scoped to the page's path, valid 7 days. 400 for a used, expired or foreign link; 403 for a post from another origin.",
  request: { public: true, path: hostedSlugPath, body: sessionQuery, bodyFormat: "form" },
  response: { status: 303, raw: "text/html" },
} as const satisfies RouteContract;
