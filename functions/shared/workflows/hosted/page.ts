import { getHostingBySlug } from "../../db/hosting.ts";
import { getNamespace } from "../../db/namespaces.ts";
import { countRequest } from "../../db/rate-limits.ts";
import { serviceSecret } from "../../db/service-secret.ts";
import { forbidden, notFound } from "../../domain/errors.ts";
import { isAllowedVisitor, verifySession } from "../../domain/hosted/access.ts";
import { hostingChatModel, type HostingRecord } from "../../domain/hosting.ts";
import type { NamespaceRecord } from "../../domain/namespace.ts";
import { chatModelHere } from "../../domain/llm-config.ts";
import { config } from "../../platform/env.ts";

/**
 * The public side of hosting: the page a slug names, who may visit it, and how a visitor of a
 * protected page signs in (its search is in search.ts). A page exists while its hosting does
 * and its namespace is not being deleted; deleting either, or moving the slug, takes it down at the
 * next request (nothing is cached across requests).
 */
export interface PublishedPage {
  hosting: HostingRecord;
  namespace: NamespaceRecord;
}

/** The service secret that signs visitors' session cookies. */
export const SESSION_SECRET = "hosted-page-sessions";
/**
 * Requests per visitor (source address) and per page, each minute; see README "Hosted pages".
 * Chat answers cost model tokens, so they are held tighter than searches.
 */
export const HOSTED_LIMITS = {
  search: { perVisitorPerMinute: 30, perPagePerMinute: 600 },
  chat: { perVisitorPerMinute: 10, perPagePerMinute: 120 },
} as const;

/** Counts a visitor's search or chat; the refusal says for how long. */
export function countVisit(slug: string, visitor: string, use: keyof typeof HOSTED_LIMITS): ReturnType<typeof countRequest> {
  // Search keeps the counter names it had before chat existed.
  const name = use === "search" ? `hosted:${slug}` : `hosted-${use}:${slug}`;
  const limits = HOSTED_LIMITS[use];
  return countRequest([
    { name: `${name}:visitor:${visitor}`, limit: limits.perVisitorPerMinute, windowSeconds: 60 },
    { name, limit: limits.perPagePerMinute, windowSeconds: 60 },
  ], config.hostedRateClockMs());
}

/** Whether the chat tab can answer: the page's model, or the deployment's default. Here, not with chat, so the page does not bundle it. */
export function pageCanChat(hosting: HostingRecord): boolean {
  return chatModelHere(hostingChatModel(hosting)) !== null;
}

export async function publishedPage(slug: string): Promise<PublishedPage> {
  const hosting = await getHostingBySlug(slug);
  const namespace = hosting ? await getNamespace(hosting.namespaceId) : null;
  if (!hosting || !namespace || namespace.status !== "ACTIVE") throw notFound(`No hosted page at ${slug}.`);
  return { hosting, namespace };
}

/** Whether the visitor may use the page: always for an open page; for a protected one, with a valid session. */
export async function isAdmitted(page: PublishedPage, sessionCookie: string | undefined, now = Date.now()): Promise<boolean> {
  if (!page.hosting.protected) return true;
  if (!sessionCookie) return false;
  const claims = verifySession(sessionCookie, await serviceSecret(SESSION_SECRET), Math.floor(now / 1000));
  return claims !== null && claims.namespaceId === page.namespace.id && isAllowedVisitor(page.hosting, claims.email);
}

export async function assertAdmitted(page: PublishedPage, sessionCookie: string | undefined): Promise<void> {
  if (!(await isAdmitted(page, sessionCookie))) {
    throw forbidden("This page is protected: sign in with an allowed e-mail address to use it.");
  }
}
