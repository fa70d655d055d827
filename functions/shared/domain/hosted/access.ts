import { createHmac, timingSafeEqual } from "node:crypto";
import * as z from "../../platform/zod.ts";
import type { HostingRecord } from "../hosting.ts";

/**
 * Who may visit a protected hosted page: someone who proved, through a one-time link sent to it, an
 * e-mail address listed in `allowedEmails` or on a domain in `allowedEmailDomains`. The proof is a
 * session cookie signed with a service secret; it names the namespace and the address, expires, and
 * is checked against the current lists on every request, so removing an address locks it out.
 */
export const SESSION_COOKIE = "kis_page_session";
export const SESSION_SECONDS = 7 * 24 * 3600;
export const SIGN_IN_LINK_SECONDS = 15 * 60;

export const signInBody = z.object({
  email: z.pipe(z.string().check(z.trim(), z.toLowerCase(), z.maxLength(254)), z.email()),
});

export const sessionQuery = z.object({
  token: z.string().check(z.regex(/^[A-Za-z0-9_-]{43}$/, "is not a sign-in token")),
});

export function isAllowedVisitor(hosting: Pick<HostingRecord, "allowedEmails" | "allowedEmailDomains">, email: string): boolean {
  const address = email.toLowerCase();
  const domain = address.slice(address.lastIndexOf("@") + 1);
  return hosting.allowedEmails.includes(address) || hosting.allowedEmailDomains.includes(domain);
}

interface SessionClaims {
  namespaceId: string;
  email: string;
  /** Seconds since the epoch. */
  expiresAt: number;
}

function mac(payload: string, key: Buffer): string {
  return createHmac("sha256", key).update(`hosted-page-session.${payload}`).digest("base64url");
}

export function signSession(claims: SessionClaims, key: Buffer): string {
  const payload = Buffer.from(JSON.stringify(claims)).toString("base64url");
  return `${payload}.${mac(payload, key)}`;
}

/** The claims of a cookie value this service signed and that has not expired; null for anything else. */
export function verifySession(value: string, key: Buffer, nowSeconds: number): SessionClaims | null {
  const [payload, signature, extra] = value.split(".");
  if (!payload || !signature || extra !== undefined) return null;
  const expected = Buffer.from(mac(payload, key));
  const given = Buffer.from(signature);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return null;
  try {
    const claims = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as SessionClaims;
    if (typeof claims.namespaceId !== "string" || typeof claims.email !== "string" || typeof claims.expiresAt !== "number") return null;
    return claims.expiresAt > nowSeconds ? claims : null;
  } catch {
    return null;
  }
}

/** One cookie's value from a Cookie header. */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? "").split(";")) {
    const separator = part.indexOf("=");
    if (separator > 0 && part.slice(0, separator).trim() === name) return part.slice(separator + 1).trim();
  }
  return undefined;
}
