import { resolveFileType } from "../../domain/catalogs/file-types.ts";
import { isTextFormat, extractText } from "../text-formats.ts";
import { DocumentExtractionError } from "../limits.ts";
import { htmlToMarkdown, joinBlocks } from "../markdown.ts";
import type { ExtractedDocument, ExtractionOptions, FormatExtractor } from "../types.ts";

/**
 * E-mail messages (.eml, RFC 5322 MIME) through postal-mime: pure JavaScript, no dependencies,
 * bounded nesting and header sizes. The subject becomes the title, then From/To/Cc/Date, the body
 * (the text/plain part when there is one, else the HTML part as Markdown), then every attachment
 * the service reads as text (plain text, Markdown, HTML, JSON, CSV...) under its own heading.
 * Other attachments are named in the notes.
 */

async function extract(bytes: Uint8Array, _options: ExtractionOptions): Promise<ExtractedDocument> {
  const { default: PostalMime } = await import("postal-mime");
  type Email = Awaited<ReturnType<typeof PostalMime.parse>>;
  let email: Email;
  try {
    email = await PostalMime.parse(bytes, { attachmentEncoding: "arraybuffer" });
  } catch (error) {
    throw new DocumentExtractionError(`the e-mail could not be read (${error instanceof Error ? error.message : String(error)})`);
  }
  if (email.headers.length === 0) throw new DocumentExtractionError("the file is not an e-mail message (it has no headers)");

  const header = [
    ["From", addresses(email.from ? [email.from] : [])],
    ["To", addresses(email.to)],
    ["Cc", addresses(email.cc)],
    ["Date", email.date ?? ""],
  ]
    .filter(([, value]) => value !== "")
    .map(([name, value]) => `${name}: ${value}`)
    .join("\n");
  const body = email.text?.trim() ? normalizeNewlines(email.text) : email.html ? htmlToMarkdown(email.html) : "";

  const notes: string[] = [];
  const attachments: string[] = [];
  for (const attachment of email.attachments) {
    const name = attachment.filename ?? "unnamed attachment";
    const type = resolveFileType({ fileName: attachment.filename, contentType: attachment.mimeType });
    if (!type || !isTextFormat(type.format) || attachment.related) {
      if (!attachment.related) notes.push(`the attachment ${name} (${attachment.mimeType}) was not read: only text attachments are`);
      continue;
    }
    const content = attachment.content;
    const bytesOf = typeof content === "string" ? new TextEncoder().encode(content) : content instanceof ArrayBuffer ? new Uint8Array(content) : content;
    try {
      attachments.push(`## Attachment: ${name}\n\n${extractText(bytesOf, type.format).text.trim()}`);
    } catch (error) {
      if (!(error instanceof DocumentExtractionError)) throw error;
      notes.push(`the attachment ${name} was not read: ${error.message}`);
    }
  }
  const text = joinBlocks([email.subject ? `# ${email.subject.trim()}` : "", header, body, ...attachments]);
  return { text, notes };
}

type AddressList = readonly ({ name: string; address?: string | undefined; group?: readonly { name: string; address: string }[] | undefined })[];

function addresses(list: AddressList | undefined): string {
  const mailboxes: { name: string; address?: string | undefined }[] = [];
  for (const entry of list ?? []) mailboxes.push(...(entry.group ?? [entry]));
  return mailboxes
    .map(({ name, address }) => (name && address ? `${name} <${address}>` : (address ?? name)))
    .filter(Boolean)
    .join(", ");
}

function normalizeNewlines(text: string): string {
  return text.replace(/\r\n?/g, "\n").trim();
}

const extractor: FormatExtractor = { extract };

export function create(): FormatExtractor {
  return extractor;
}
