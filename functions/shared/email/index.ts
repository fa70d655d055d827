import { config } from "../platform/env.ts";
import { EMAIL_BACKENDS, type EmailBackendId } from "./registry.ts";
import type { EmailSender } from "./types.ts";

export type { EmailMessage, EmailSender } from "./types.ts";

/** The deployment's sender, or null when it has none (EMAIL_BACKEND unset or `none`). */
export async function emailSender(): Promise<EmailSender | null> {
  const backend = config.emailBackend();
  if (!Object.hasOwn(EMAIL_BACKENDS, backend)) return null;
  return (await EMAIL_BACKENDS[backend as EmailBackendId].load()).create();
}
