import { z } from "zod";
import { idParam } from "./params.ts";
import { STATUSES } from "./statuses.ts";

const statusList = z
  .string()
  .optional()
  .transform((value) => {
    const items = (value ?? "")
      .split(",")
      .map((item) => item.trim())
      .filter(Boolean);
    return items.length > 0 ? items : null;
  })
  .pipe(z.array(z.enum(STATUSES, { error: `must be a comma-separated list of ${STATUSES.join(", ")}` })).nullable());

/** The cursor-paginated list query of E5 and of the documents list. */
export const listQuery = z.object({
  statuses: statusList,
  orderBy: z.enum(["createdAt"]).default("createdAt"),
  order: z.enum(["asc", "desc"]).default("desc"),
  cursor: z.string().min(1).max(2048).optional(),
  cursorDirection: z.enum(["forward", "backward"]).default("forward"),
  perPage: z
    .string()
    .regex(/^\d+$/, "must be an integer from 1 to 100")
    .transform(Number)
    .pipe(z.number().int().min(1).max(100))
    .default(30),
});

export const documentListQuery = listQuery.extend({ ingestJobId: idParam("ingestJob").optional() });
