import type { RouteContract } from "../../shared/http/contract.ts";
import { hostedSlugPath } from "../../shared/domain/hosted/page.ts";

export const getHostedPage = {
  operationId: "getHostedPage",
  method: "GET",
  path: "/hosted/{slug}",
  summary: "A namespace's hosted page (no key)",
  tag: "Hosted pages",
  description:
    "Rendered from the namespace's hosting configuration. A protected page shows a visitor without a valid session cookie only its title and the e-mail sign-in form. 404 when no hosting has this slug (deleted, moved, or its namespace is being deleted).",
  request: { public: true, path: hostedSlugPath },
  response: { status: 200, raw: "text/html" },
} as const satisfies RouteContract;
