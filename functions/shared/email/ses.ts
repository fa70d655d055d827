import type { SESv2Client } from "@aws-sdk/client-sesv2";
import { config } from "../platform/env.ts";
import { lazyImport } from "../platform/lazy-import.ts";
import { observed } from "../platform/sdk-observer.ts";
import type { EmailSender } from "./types.ts";

type SesSdk = typeof import("@aws-sdk/client-sesv2");

/** Only sign-in requests send mail; the client is not loaded before the first one. */
const loadSes = lazyImport<SesSdk>(() => import("@aws-sdk/client-sesv2"));

let client: SESv2Client | undefined;

export function create(): EmailSender {
  return {
    async send(message) {
      const sdk = await loadSes();
      client ??= observed(new sdk.SESv2Client({ maxAttempts: 3 }));
      await client.send(
        new sdk.SendEmailCommand({
          FromEmailAddress: config.emailSender(),
          Destination: { ToAddresses: [message.to] },
          Content: { Simple: { Subject: { Data: message.subject, Charset: "UTF-8" }, Body: { Text: { Data: message.text, Charset: "UTF-8" } } } },
        }),
      );
    },
  };
}
