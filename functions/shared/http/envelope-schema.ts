import * as z from "../platform/zod.ts";
import { ERROR_STATUS, type ErrorCode } from "./envelope.ts";

/** The error envelope (envelope.ts) as a schema, for the OpenAPI document only: nothing at run time loads it. */
export const errorEnvelopeWire = z.strictObject({
  success: z.literal(false),
  error: z.strictObject({
    code: z.enum(Object.keys(ERROR_STATUS) as [ErrorCode, ...ErrorCode[]]),
    message: z.string(),
    doc_url: z.optional(z.string()),
  }),
});
