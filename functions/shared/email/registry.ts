import type { EmailSender } from "./types.ts";

/**
 * How a deployment sends e-mail, by `EMAIL_BACKEND`: Amazon SES deployed (from the verified
 * `EMAIL_SENDER` address), a local outbox on the local stack (each message a JSON file in
 * `EMAIL_OUTBOX_DIR`, and a log line with the message, so the dev console shows sign-in links), or
 * none (a deployment without a sender: sign-in is refused with the reason).
 */
export const EMAIL_BACKENDS = {
  ses: { load: () => import("./ses.ts") as Promise<{ createEmailSender(): EmailSender }> },
  outbox: { load: () => import("./outbox.ts") as Promise<{ createEmailSender(): EmailSender }> },
} as const;

export type EmailBackendId = keyof typeof EMAIL_BACKENDS;
