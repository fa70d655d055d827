import { createHash, randomBytes } from "node:crypto";
import { getHostingBySlug } from "../db/hosting.ts";
import { getNamespace } from "../db/namespaces.ts";
import { countRequest } from "../db/rate-limits.ts";
import { serviceSecret } from "../db/service-secret.ts";
import { consumeSignInToken, saveSignInToken } from "../db/sign-in-tokens.ts";
import { forbidden, invalidRequest, notFound } from "../domain/errors.ts";
import { isAllowedVisitor, SESSION_SECONDS, SIGN_IN_LINK_SECONDS, signSession, verifySession } from "../domain/hosted-access.ts";
import { hostingChatModel, type HostingRecord } from "../domain/hosting.ts";
import type { NamespaceRecord } from "../domain/namespace.ts";
import { emailSender } from "../email/index.ts";
import { logger } from "../platform/logger.ts";
import { chatModelHere } from "../domain/llm-config.ts";

/**
 * The public side of hosting: the page a slug names, who may visit it, and how a visitor of a
 * protected page signs in (its search is in hosted-search.ts). A page exists while its hosting does
 * and its namespace is not being deleted; deleting either, or moving the slug, takes it down at the
 * next request (nothing is cached across requests).
 */
export interface PublishedPage {
  hosting: HostingRecord;
  namespace: NamespaceRecord;
}

const SESSION_SECRET = "hosted-page-sessions";
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
  ]);
}

/** Sign-in links a visitor may ask for, and one address may receive, per window. */
const SIGN_IN_LIMITS = { perVisitorPerMinute: 5, perAddressPerTenMinutes: 3 };

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

/**
 * Sends a one-time sign-in link when the address may visit the page. The caller is told the same
 * thing whether or not it may, so the page does not reveal who is allowed.
 */
export async function requestSignIn(
  page: PublishedPage,
  email: string,
  visitor: string,
  linkFor: (token: string) => string,
): Promise<{ limitedForSeconds?: number }> {
  const counted = await countRequest([
    { name: `signin:${page.hosting.slug}:visitor:${visitor}`, limit: SIGN_IN_LIMITS.perVisitorPerMinute, windowSeconds: 60 },
    { name: `signin:${page.hosting.slug}:address:${email}`, limit: SIGN_IN_LIMITS.perAddressPerTenMinutes, windowSeconds: 600 },
  ]);
  if (!counted.allowed) return { limitedForSeconds: counted.retryAfterSeconds };
  if (!page.hosting.protected || !isAllowedVisitor(page.hosting, email)) return {};
  const sender = await emailSender();
  if (!sender) throw forbidden("E-mail sign-in is not configured on this deployment (no sender address).");
  const token = randomBytes(32).toString("base64url");
  const expiresAtMs = Date.now() + SIGN_IN_LINK_SECONDS * 1000;
  await saveSignInToken(tokenHash(token), { namespaceId: page.namespace.id, email, expiresAtMs });
  const title = page.hosting.title ?? page.hosting.slug;
  await sender.send({
    to: email,
    subject: `Sign in to ${title}`,
    text: `Open this link to sign in to ${title}. It works once, within ${SIGN_IN_LINK_SECONDS / 60} minutes:\n\n${linkFor(token)}\n\nIf you did not ask for it, ignore this message.`,
  });
  logger.info("sign-in link sent", { namespaceId: page.namespace.id, slug: page.hosting.slug });
  return {};
}

/** Uses up a sign-in link of this page and returns the session cookie value for its address. */
export async function completeSignIn(page: PublishedPage, token: string, now = Date.now()): Promise<{ value: string; maxAgeSeconds: number }> {
  const grant = await consumeSignInToken(tokenHash(token), now);
  if (!grant || grant.namespaceId !== page.namespace.id || !isAllowedVisitor(page.hosting, grant.email)) {
    throw invalidRequest("This sign-in link is not valid: it was used already, has expired, or is not for this page. Ask for a new one.");
  }
  const value = signSession({ namespaceId: page.namespace.id, email: grant.email, expiresAt: Math.floor(now / 1000) + SESSION_SECONDS }, await serviceSecret(SESSION_SECRET));
  return { value, maxAgeSeconds: SESSION_SECONDS };
}

function tokenHash(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}
