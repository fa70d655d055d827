import * as z from "../platform/zod.ts";
import { idParam } from "./params.ts";
import { STATUSES } from "./statuses.ts";

const statusList = z.pipe(
  z.pipe(
    z.optional(z.string()),
    z.transform((value: string | undefined) => {
      const items = (value ?? "")
        .split(",")
        .map((item) => item.trim())
        .filter(Boolean);
      return items.length > 0 ? items : null;
    }),
  ),
  z.nullable(z.array(z.enum(STATUSES, { error: `must be a comma-separated list of ${STATUSES.join(", ")}` }))),
);

/** The cursor-paginated list query of listIngestJobs and of the documents list. */
export const listQuery = z.object({
  statuses: statusList,
  orderBy: z._default(z.enum(["createdAt"]), "createdAt"),
  order: z._default(z.enum(["asc", "desc"]), "desc"),
  cursor: z.optional(z.string().check(z.minLength(1), z.maxLength(2048))),
  cursorDirection: z._default(z.enum(["forward", "backward"]), "forward"),
  perPage: z._default(
    z.pipe(
      z.pipe(z.string().check(z.regex(/^\d+$/, "must be an integer from 1 to 100")), z.transform(Number)),
      z.number().check(z.int(), z.gte(1), z.lte(100)),
    ),
    30,
  ),
});

export const documentListQuery = z.extend(listQuery, { ingestJobId: z.optional(idParam("ingestJob")) });
