import type { APIGatewayProxyEvent } from "aws-lambda";
import { cookieValue, SESSION_COOKIE } from "../../domain/hosted/access.ts";
import { assertAdmitted, countVisit, type HOSTED_LIMITS, publishedPage, type PublishedPage } from "../../workflows/hosted/page.ts";
import { HttpError } from "../error-mapping.ts";
import { headerValue } from "../handler.ts";

/**
 * What the hosted-page handlers read from a request: who the visitor is, their session cookie, and
 * the page's own URL. The URL is built from what API Gateway reports (domainName, and the path with
 * its stage), never from the Host header a client could forge into a sign-in e-mail.
 */
export function visitorAddress(event: APIGatewayProxyEvent): string {
  return event.requestContext?.identity?.sourceIp ?? "unknown";
}

export function sessionCookieOf(event: APIGatewayProxyEvent): string | undefined {
  return cookieValue(headerValue(event, "cookie"), SESSION_COOKIE);
}

/** `/api/hosted/<slug>` deployed (the stage is part of the path), `/hosted/<slug>` locally. */
export function pagePath(event: APIGatewayProxyEvent, slug: string): string {
  const path = event.requestContext?.path ?? event.path;
  const at = path.indexOf(`/hosted/${slug}`);
  return `${at > 0 ? path.slice(0, at) : ""}/hosted/${slug}`;
}

export function pageUrl(event: APIGatewayProxyEvent, slug: string): string {
  const host = event.requestContext?.domainName ?? "localhost";
  const local = /^(127\.0\.0\.1|localhost|\[::1\])(:\d+)?$/.test(host);
  return `${local ? "http" : "https"}://${host}${pagePath(event, slug)}`;
}

/** The session cookie: only sent back to this page's paths, never readable by scripts, not sent cross-site. */
export function sessionCookie(event: APIGatewayProxyEvent, slug: string, value: string, maxAgeSeconds: number): string {
  const secure = pageUrl(event, slug).startsWith("https:") ? "; Secure" : "";
  return `${SESSION_COOKIE}=${value}; Path=${pagePath(event, slug)}; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=Lax${secure}`;
}

const TOO_MANY: Record<keyof typeof HOSTED_LIMITS, string> = {
  search: "Too many searches on this page; try again shortly.",
  chat: "Too many questions on this page; try again shortly.",
};

/**
 * The page a visitor's search or question is for, once the visitor is admitted (an open page, or a
 * valid session on a protected one) and counted against the page's limits (429 with Retry-After).
 */
export async function admitVisit(slug: string, event: APIGatewayProxyEvent, use: keyof typeof HOSTED_LIMITS): Promise<PublishedPage> {
  return admitVisitTo(await publishedPage(slug), event, use);
}

/** admitVisit for a page the handler has already loaded (to look at its settings first). */
export async function admitVisitTo(page: PublishedPage, event: APIGatewayProxyEvent, use: keyof typeof HOSTED_LIMITS): Promise<PublishedPage> {
  await assertAdmitted(page, sessionCookieOf(event));
  const visit = await countVisit(page.hosting.slug, visitorAddress(event), use);
  if (!visit.allowed) throw new HttpError("rate_limit_exceeded", TOO_MANY[use], { "retry-after": String(visit.retryAfterSeconds) });
  return page;
}
