import { createHash, randomBytes } from "node:crypto";
import { getHosting } from "../../db/hosting.ts";
import { getNamespace } from "../../db/namespaces.ts";
import { countRequest } from "../../db/rate-limits.ts";
import { serviceSecret } from "../../db/service-secret.ts";
import { claimPendingLink, consumeSignInToken, deleteSignInToken, releasePendingLink, saveSignInToken } from "../../db/sign-in-tokens.ts";
import { forbidden, invalidRequest } from "../../domain/errors.ts";
import { isAllowedVisitor, SESSION_SECONDS, SIGN_IN_LINK_SECONDS, signSession } from "../../domain/hosted/access.ts";
import { emailSender } from "../../email/index.ts";
import { config } from "../../platform/env.ts";
import { faultPoint } from "../../platform/fault-points.ts";
import { logger } from "../../platform/logger.ts";
import { countEvent } from "../../platform/metrics.ts";
import { enqueue } from "../../queue/send.ts";
import { type PublishedPage, SESSION_SECRET } from "./page.ts";

/**
 * How a visitor of a protected hosted page signs in: asks for a link (sign-in.ts), the mail worker
 * sends it (workers/mail.ts), the visitor uses it once (session.ts) and holds a signed session cookie.
 */

/**
 * Sign-in requests a visitor may make on one page each minute (refused with a 429, the same for any
 * address), and sign-in mails the deployment sends: per organization each hour, and per recipient
 * address each hour across every page. Only sends are counted against the mail caps, and an address
 * has at most one pending link per page, so requests from strangers cannot spend an address's
 * allowance or turn the sender into a relay. See README "Hosted pages".
 */
export const SIGN_IN_LIMITS = { perVisitorPerMinute: 5, mailsPerOrganizationPerHour: 100, mailsPerAddressPerHour: 5 } as const;

/**
 * Takes a visitor's request for a sign-in link. The same work for every address (count the visitor,
 * queue the request): whether the address may visit, and whether a link goes out, is decided by the
 * mail worker (deliverSignIn), so neither the answer, its status nor its time tells who is allowed,
 * and no failure to send reaches the visitor.
 */
export async function requestSignIn(page: PublishedPage, email: string, visitor: string, pageUrl: string): Promise<{ limitedForSeconds?: number }> {
  // A deployment without a sender refuses every address alike.
  if (page.hosting.protected && !config.emailBackendConfigured()) throw forbidden("E-mail sign-in is not configured on this deployment (no sender address).");
  const counted = await countRequest([{ name: `signin:${page.hosting.slug}:visitor:${visitor}`, limit: SIGN_IN_LIMITS.perVisitorPerMinute, windowSeconds: 60 }]);
  if (!counted.allowed) return { limitedForSeconds: counted.retryAfterSeconds };
  if (page.hosting.protected) await enqueue("mail", { kind: "sign-in", namespaceId: page.namespace.id, slug: page.hosting.slug, email, pageUrl });
  return {};
}

/**
 * Sends the link a queued request asked for, when the address may visit the page as it is now, no
 * link of the page is pending for it, and neither the organization's nor the address's hourly mail
 * cap is reached. The mail holds only what the service writes: the page's address (host and slug),
 * never text its owner chose. A send that fails is logged and counted, never retried here.
 */
export async function deliverSignIn(request: { namespaceId: string; slug: string; email: string; pageUrl: string }, now = Date.now()): Promise<"sent" | "skipped" | "capped" | "failed"> {
  const [hosting, namespace] = await Promise.all([getHosting(request.namespaceId), getNamespace(request.namespaceId)]);
  if (!hosting || !namespace || namespace.status !== "ACTIVE" || hosting.slug !== request.slug || !hosting.protected) return "skipped";
  if (!isAllowedVisitor(hosting, request.email)) return "skipped";
  const sender = await emailSender();
  if (!sender) {
    countEvent("SignInMailFailures", "sign-in mail not sent: the deployment has no sender", { namespaceId: namespace.id, slug: hosting.slug });
    return "failed";
  }
  const address = addressHash(request.email);
  const expiresAtMs = now + SIGN_IN_LINK_SECONDS * 1000;
  if (!(await claimPendingLink(namespace.id, address, expiresAtMs, now))) return "skipped";
  // Every way out that sends nothing gives the claim back, a thrown error included: the queue retries
  // the request, and a claim left behind would answer that retry "skipped" and lock the address out
  // until the claim expires.
  let sent = false;
  try {
    await faultPoint("sign-in:link-claimed");
    const capped = await countRequest(
      [
        { name: `signin-mail:organization:${namespace.organizationId}`, limit: SIGN_IN_LIMITS.mailsPerOrganizationPerHour, windowSeconds: 3600 },
        { name: `signin-mail:address:${address}`, limit: SIGN_IN_LIMITS.mailsPerAddressPerHour, windowSeconds: 3600 },
      ],
      now,
    );
    if (!capped.allowed) {
      countEvent("SignInMailsCapped", "sign-in mail not sent: hourly cap reached", { namespaceId: namespace.id, slug: hosting.slug, cap: capped.name.split(":")[1] });
      return "capped";
    }
    const token = randomBytes(32).toString("base64url");
    await saveSignInToken(tokenHash(token), { namespaceId: namespace.id, email: request.email, expiresAtMs });
    // The page's address as API Gateway reported it (host, stage and slug), without its scheme so mail
    // clients do not turn it into a second link.
    const page = request.pageUrl.replace(/^https?:\/\//, "");
    try {
      await sender.send({
        to: request.email,
        subject: `Your sign-in link for ${page}`,
        text: `Open this link to sign in to ${page}. It works once, within ${SIGN_IN_LINK_SECONDS / 60} minutes:\n\n${request.pageUrl}/session?token=${token}\n\nIf you did not ask for it, ignore this message.`,
      });
    } catch (error) {
      await deleteSignInToken(tokenHash(token));
      countEvent("SignInMailFailures", "sign-in mail failed", { namespaceId: namespace.id, slug: hosting.slug, reason: redactAddresses(error instanceof Error ? `${error.name}: ${error.message}` : String(error)) }, "error");
      return "failed";
    }
    sent = true;
  } finally {
    if (!sent) await releasePendingLink(namespace.id, address);
  }
  logger.info("sign-in link sent", { namespaceId: namespace.id, slug: hosting.slug });
  return "sent";
}

/** Uses up a sign-in link of this page and returns the session cookie value for its address. */
export async function completeSignIn(page: PublishedPage, token: string, now = Date.now()): Promise<{ value: string; maxAgeSeconds: number }> {
  const grant = await consumeSignInToken(tokenHash(token), now);
  if (!grant || grant.namespaceId !== page.namespace.id || !isAllowedVisitor(page.hosting, grant.email)) {
    throw invalidRequest("This sign-in link is not valid: it was used already, has expired, or is not for this page. Ask for a new one.");
  }
  // Used up: the address may ask for a new link (another device) without waiting for this one to expire.
  await releasePendingLink(grant.namespaceId, addressHash(grant.email));
  const value = signSession({ namespaceId: page.namespace.id, email: grant.email, expiresAt: Math.floor(now / 1000) + SESSION_SECONDS }, await serviceSecret(SESSION_SECRET));
  return { value, maxAgeSeconds: SESSION_SECONDS };
}

function tokenHash(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

/** Addresses appear in keys and counters only as their SHA-256. */
function addressHash(email: string): string {
  return createHash("sha256").update(email.toLowerCase()).digest("hex");
}

/** SES names the rejected recipient in its message; logs keep the reason, not the address. */
function redactAddresses(text: string): string {
  return text.replace(/[^\s@<>"']+@[^\s@<>"']+/g, "<address>");
}
