import { randomUUID } from "node:crypto";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { config } from "../platform/env.ts";
import type { EmailSender } from "./types.ts";

/**
 * The local stack's mail: nothing leaves the machine. Each message is written to the outbox folder
 * (tests read it) and printed whole, so whoever runs `npm run dev` sees the sign-in link.
 */
export function create(): EmailSender {
  return {
    async send(message) {
      const folder = config.emailOutboxDir();
      await mkdir(folder, { recursive: true });
      const sentAt = new Date().toISOString();
      await writeFile(join(folder, `${sentAt.replace(/[:.]/g, "-")}-${randomUUID()}.json`), JSON.stringify({ ...message, sentAt }, null, 2));
      // The local stack logs warnings only; whoever runs `npm run dev` must see the link, so it is printed.
      console.log(`\n--- e-mail to ${message.to} (local outbox: ${folder}) ---\nSubject: ${message.subject}\n\n${message.text}\n---\n`);
    },
  };
}
