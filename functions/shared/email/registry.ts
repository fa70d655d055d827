import type { EmailSender } from "./types.ts";

/**
 * How a deployment sends e-mail, by `EMAIL_BACKEND`: Amazon SES deployed (from the verified
 * `EMAIL_SENDER` address), a local outbox on the local stack (each message a JSON file in
 * `EMAIL_OUTBOX_DIR`, and a log line with the message, so the dev console shows sign-in links), or
 * none (a deployment without a sender: sign-in is refused with the reason).
 */
export interface EmailSenderModule {
  /** Every module a port loads exports `create`. */
  create(): EmailSender;
}

export const EMAIL_BACKENDS = {
  ses: { load: (): Promise<EmailSenderModule> => import("./ses.ts") },
  outbox: { load: (): Promise<EmailSenderModule> => import("./outbox.ts") },
} as const;

export type EmailBackendId = keyof typeof EMAIL_BACKENDS;
