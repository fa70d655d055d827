import { createHash, randomBytes } from "node:crypto";

/** `kis_` + 32 base64url characters (192 random bits). Only the SHA-256 hash is ever stored. */
export const API_KEY_PREFIX = "kis_";
const API_KEY_PATTERN = /^[A-Za-z0-9_-]{16,256}$/;

export function generateApiKey(): string {
  return API_KEY_PREFIX + randomBytes(24).toString("base64url");
}

export function hashApiKey(key: string): string {
  return createHash("sha256").update(key, "utf8").digest("hex");
}

/** A public, non-secret handle for a key (derived from its hash) used to list and revoke it. */
export function keyIdFromHash(keyHash: string): string {
  return `key_${keyHash.slice(0, 16)}`;
}

/** Shows enough of a key to recognise it, never enough to use it. */
export function keyPreview(key: string): string {
  return `${key.slice(0, 8)}...${key.slice(-4)}`;
}

/**
 * The key carried by an `Authorization: Bearer <key>` header value, or null when the header is
 * missing or malformed.
 */
export function bearerToken(headerValue: string | undefined | null): string | null {
  if (!headerValue) return null;
  const match = /^Bearer +(\S+)\s*$/i.exec(headerValue);
  if (!match || !match[1] || !API_KEY_PATTERN.test(match[1])) return null;
  return match[1];
}
