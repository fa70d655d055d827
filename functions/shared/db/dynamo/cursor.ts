import { createHmac, timingSafeEqual } from "node:crypto";
import { invalidRequest } from "../../domain/errors.ts";

/**
 * Pagination cursors: the position (sort key) of a record, bound to the exact listing it came from
 * (collection, namespace, tenant, filters, order) and signed. A cursor edited by hand, or replayed
 * against another namespace, tenant or filter, is refused with a 400 instead of paging somewhere
 * else.
 */
export interface CursorBinding {
  collection: string;
  namespaceId: string;
  tenantId: string | null;
  statuses: string[] | null;
  parentId: string | null;
  order: "asc" | "desc";
}

const SIGNATURE_LENGTH = 22;

function bindingString(binding: CursorBinding): string {
  return JSON.stringify([
    binding.collection,
    binding.namespaceId,
    binding.tenantId,
    binding.statuses ? [...binding.statuses].sort() : null,
    binding.parentId,
    binding.order,
  ]);
}

function sign(secret: Buffer, position: string, binding: CursorBinding): string {
  return createHmac("sha256", secret).update(position).update("\u0000").update(bindingString(binding)).digest("base64url").slice(0, SIGNATURE_LENGTH);
}

export function encodeCursor(secret: Buffer, position: string, binding: CursorBinding): string {
  return `${Buffer.from(position, "utf8").toString("base64url")}.${sign(secret, position, binding)}`;
}

/** The position a cursor points at; 400 when it is malformed, tampered with or from another listing. */
export function decodeCursor(secret: Buffer, cursor: string, binding: CursorBinding): string {
  const [encoded, signature, extra] = cursor.split(".");
  const invalid = () => invalidRequest("Invalid cursor: use a nextCursor or prevCursor from a previous response of this same listing.");
  if (!encoded || !signature || extra !== undefined || !/^[A-Za-z0-9_-]+$/.test(encoded)) throw invalid();
  const position = Buffer.from(encoded, "base64url").toString("utf8");
  const expected = Buffer.from(sign(secret, position, binding));
  const given = Buffer.from(signature);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) throw invalid();
  return position;
}
