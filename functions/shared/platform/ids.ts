import { randomBytes } from "node:crypto";

export const ID_PREFIX = {
  organization: "org_",
  namespace: "ns_",
  ingestJob: "job_",
  document: "doc_",
  apiKey: "key_",
} as const;

export type IdKind = keyof typeof ID_PREFIX;

/** 16 random bytes (128 bits) in base64url: unguessable, URL-safe, 22 characters. */
export function newId(kind: IdKind): string {
  return ID_PREFIX[kind] + randomBytes(16).toString("base64url");
}

const ID_BODY = /^[A-Za-z0-9_-]{1,64}$/;

/** True when `value` is a well-formed id of `kind`: the right prefix and URL-safe characters. */
export function isWellFormedId(kind: IdKind, value: string): boolean {
  const prefix = ID_PREFIX[kind];
  return value.startsWith(prefix) && ID_BODY.test(value.slice(prefix.length));
}
