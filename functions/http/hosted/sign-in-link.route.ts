import type { RouteContract } from "../../shared/http/contract.ts";
import { sessionQuery } from "../../shared/domain/hosted/access.ts";
import { hostedSlugPath } from "../../shared/domain/hosted/page.ts";

export const openHostedPageSignInLink = {
  operationId: "openHostedPageSignInLink",
  method: "GET",
  path: "/hosted/{slug}/session",
  summary: "The e-mailed sign-in link: a page whose button signs in (no key)",
  tag: "Hosted pages",
  description: "Uses nothing up, so a mail scanner that fetches the link cannot spend it; the button posts the token to the same address.",
  request: { public: true, path: hostedSlugPath, query: sessionQuery },
  response: { status: 200, raw: "text/html" },
} as const satisfies RouteContract;
