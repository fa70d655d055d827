import type { RouteContract } from "../../shared/http/contract.ts";
import { signInBody } from "../../shared/domain/hosted/access.ts";
import { hostedSlugPath } from "../../shared/domain/hosted/page.ts";

export const requestHostedPageSignIn = {
  operationId: "requestHostedPageSignIn",
  method: "POST",
  path: "/hosted/{slug}/sign-in",
  summary: "Ask for a sign-in link to a protected hosted page (no key)",
  tag: "Hosted pages",
  description:
    "E-mails a one-time link (15 minutes) when the address is in the hosting's `allowedEmails` or on one of its `allowedEmailDomains`; the answer is the same for any address. 429 past 5 requests a minute per visitor or 3 links per address in 10 minutes; 403 when the deployment has no sender.",
  request: { public: true, path: hostedSlugPath, body: signInBody },
  response: { status: 200, data: "SignInRequested" },
} as const satisfies RouteContract;
