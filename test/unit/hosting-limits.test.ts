import { describe, expect, it } from "vitest";
import { hostingItem } from "../../functions/shared/db/hosting.ts";
import { applyHostingPatch, HOSTING_LIMITS, LLM_MODELS, newHosting, RERANK_MODELS, updateHostingBody } from "../../functions/shared/domain/hosting.ts";
import { formatIssue } from "../../functions/shared/platform/zod.ts";
import { DYNAMODB_MAX_ITEM_BYTES, dynamoItemSize } from "../support/dynamo-item-size.ts";

/** Three UTF-8 bytes per UTF-16 unit: the most a bounded string can weigh. */
const heavy = (length: number) => "中".repeat(length);
const heavyUrl = (length: number) => `https://e.com/${heavy(length - "https://e.com/".length)}`;

/** An e-mail address of exactly `length` characters with a 64-character local part. */
function email(length: number): string {
  const local = "a".repeat(HOSTING_LIMITS.emailLocalPartLength);
  return `${local}@${domain(length - local.length - 1)}`;
}

/** A domain name of exactly `length` characters, labels of at most 63. */
function domain(length: number): string {
  let name = "";
  let remaining = length - ".com".length;
  while (remaining > 63) {
    // A label and its dot; never leave a dot with nothing after it.
    const label = remaining === 64 ? 62 : 63;
    name += `${"b".repeat(label)}.`;
    remaining -= label + 1;
  }
  return `${name}${"b".repeat(remaining)}.com`;
}

const longestModel = (models: readonly string[]) => models.reduce((a, b) => (b.length > a.length ? b : a));

const LARGEST_PATCH = {
  title: heavy(HOSTING_LIMITS.title),
  slug: "s".repeat(48),
  logo: heavyUrl(HOSTING_LIMITS.url),
  ogImage: heavyUrl(HOSTING_LIMITS.url),
  ogTitle: heavy(HOSTING_LIMITS.ogTitle),
  ogDescription: heavy(HOSTING_LIMITS.ogDescription),
  protected: true,
  allowedEmails: Array.from({ length: HOSTING_LIMITS.allowedEmails }, () => email(HOSTING_LIMITS.emailLength)),
  allowedEmailDomains: Array.from({ length: HOSTING_LIMITS.allowedEmailDomains }, () => domain(HOSTING_LIMITS.domainLength)),
  systemPrompt: heavy(HOSTING_LIMITS.systemPrompt),
  exampleQuestions: Array.from({ length: HOSTING_LIMITS.exampleCount }, () => heavy(HOSTING_LIMITS.exampleLength)),
  exampleSearchQueries: Array.from({ length: HOSTING_LIMITS.exampleCount }, () => heavy(HOSTING_LIMITS.exampleLength)),
  welcomeMessage: heavy(HOSTING_LIMITS.welcomeMessage),
  citationMetadataPath: heavy(HOSTING_LIMITS.citationMetadataPath),
  searchEnabled: true,
  rerankModel: longestModel(RERANK_MODELS),
  rerankLimit: 100,
  llmModel: longestModel(LLM_MODELS),
  topK: 100,
};

function refusal(patch: Record<string, unknown>): string | null {
  const result = updateHostingBody.safeParse(patch);
  return result.success ? null : formatIssue(result.error.issues[0]);
}

describe("hosting limits", () => {
  it("the largest valid hosting record fits one DynamoDB item with at least 10% to spare", () => {
    const parsed = updateHostingBody.safeParse(LARGEST_PATCH);
    expect(parsed.success, parsed.success ? "" : formatIssue(parsed.error.issues[0])).toBe(true);
    const namespace = { id: `ns_${"x".repeat(22)}`, name: heavy(64), slug: "n".repeat(64) };
    const record = applyHostingPatch(newHosting(namespace, "0123456789", new Date().toISOString()), parsed.data!, new Date().toISOString());
    const size = dynamoItemSize(hostingItem(record));
    expect(size).toBeGreaterThan(300 * 1024); // the patch really is large: every bound is used
    expect(size).toBeLessThanOrEqual(DYNAMODB_MAX_ITEM_BYTES * 0.9);
  });

  it.each([
    ["title", heavy(HOSTING_LIMITS.title + 1)],
    ["logo", heavyUrl(HOSTING_LIMITS.url + 1)],
    ["ogImage", heavyUrl(HOSTING_LIMITS.url + 1)],
    ["ogTitle", heavy(HOSTING_LIMITS.ogTitle + 1)],
    ["ogDescription", heavy(HOSTING_LIMITS.ogDescription + 1)],
    ["systemPrompt", heavy(HOSTING_LIMITS.systemPrompt + 1)],
    ["welcomeMessage", heavy(HOSTING_LIMITS.welcomeMessage + 1)],
    ["citationMetadataPath", heavy(HOSTING_LIMITS.citationMetadataPath + 1)],
    ["exampleQuestions", Array(HOSTING_LIMITS.exampleCount + 1).fill("q")],
    ["exampleQuestions.0", [heavy(HOSTING_LIMITS.exampleLength + 1)]],
    ["exampleSearchQueries", Array(HOSTING_LIMITS.exampleCount + 1).fill("q")],
    ["allowedEmails", Array(HOSTING_LIMITS.allowedEmails + 1).fill("a@example.com")],
    ["allowedEmails.0", [email(HOSTING_LIMITS.emailLength + 1)]],
    ["allowedEmails.0", [`${"a".repeat(HOSTING_LIMITS.emailLocalPartLength + 1)}@example.com`]],
    ["allowedEmailDomains", Array(HOSTING_LIMITS.allowedEmailDomains + 1).fill("example.com")],
    ["allowedEmailDomains.0", [domain(HOSTING_LIMITS.domainLength + 1)]],
  ])("refuses %s one past its bound, naming the field", (field, value) => {
    const [name] = field.split(".");
    expect(refusal({ [name!]: value })).toMatch(new RegExp(`^${field.replace(".", "\\.")}: `));
  });

  it("refuses the 1,000 e-mails of 450 characters that used to overflow the item", () => {
    const local = "a".repeat(60);
    const addresses = Array.from({ length: 1000 }, (_, index) => `${local}${index}@${domain(450 - local.length - String(index).length - 1)}`);
    expect(addresses.map((address) => address.length)).toEqual(Array(1000).fill(450));
    expect(refusal({ allowedEmails: addresses })).toMatch(/^allowedEmails\.0: /);
  });
});

describe("hosting text fields", () => {
  const singleLine = {
    title: (value: string) => ({ title: value }),
    ogTitle: (value: string) => ({ ogTitle: value }),
    ogDescription: (value: string) => ({ ogDescription: value }),
    logo: (value: string) => ({ logo: `https://e.com/${value}` }),
    ogImage: (value: string) => ({ ogImage: `https://e.com/${value}` }),
    exampleQuestions: (value: string) => ({ exampleQuestions: [value] }),
    exampleSearchQueries: (value: string) => ({ exampleSearchQueries: [value] }),
    citationMetadataPath: (value: string) => ({ citationMetadataPath: value }),
  };
  const multiLine = {
    welcomeMessage: (value: string) => ({ welcomeMessage: value }),
    systemPrompt: (value: string) => ({ systemPrompt: value }),
  };
  const refusal = (body: unknown) => {
    const result = updateHostingBody.safeParse(body);
    return result.success ? null : formatIssue(result.error.issues[0]);
  };

  it("refuse line breaks and control characters in single-line fields, naming the field", () => {
    for (const [field, body] of Object.entries(singleLine)) {
      for (const bad of ["Help\r\nBcc: victim@example.com", "a\nb", "a\rb", "a\u0000b", "a\u0007b", "a\tb", "a\u007fb", "a\u0085b", "a\u2028b"]) {
        expect(refusal(body(bad)), `${field} ${JSON.stringify(bad)}`).toMatch(new RegExp(`^${field}(\\.0)?: must be one line`));
      }
      expect(refusal(body("Acme Help — ünïcode & <symbols>")), field).toBeNull();
    }
  });

  it("keep line feeds and tabs in multi-line fields, and refuse every other control character", () => {
    for (const [field, body] of Object.entries(multiLine)) {
      expect(refusal(body("First paragraph.\n\n\tSecond one.")), field).toBeNull();
      for (const bad of ["a\r\nb", "a\rb", "a\u0000b", "a\u001bb", "a\u2029b"]) {
        expect(refusal(body(bad)), `${field} ${JSON.stringify(bad)}`).toMatch(new RegExp(`^${field}: must not contain control characters`));
      }
    }
  });
});
