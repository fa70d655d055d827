import { existsSync, mkdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ingestAndWait, newNamespace, upload } from "../support/ingestion.ts";
import { mailAfterQueue } from "../support/outbox.ts";
import { useLocalStack } from "../support/local-stack.ts";
import { type OpenAiChatServer, startOpenAiChatServer } from "../support/openai-chat-server.ts";

/**
 * The hosted page in a real browser: Debian's Chromium, driven by Playwright. `.ci/run` installs the
 * package when it is missing; outside CI a machine without it skips this file and says so.
 */
const CHROMIUM = "/usr/bin/chromium";
const available = existsSync(CHROMIUM);
if (!available && process.env.CI) throw new Error(`${CHROMIUM} is missing: .ci/run installs Debian's chromium package for this test`);
if (!available) console.warn(`hosted-browser.test.ts skipped: no ${CHROMIUM} (apt-get install chromium)`);

const OUTPUT = fileURLToPath(new URL("../../test-results/", import.meta.url));
const api = useLocalStack();
let browser: Browser;
let model: OpenAiChatServer;

beforeAll(async () => {
  if (!available) return;
  // Slow enough that a page which waited for the whole answer would show it all at once.
  model = await startOpenAiChatServer({ deltaDelayMs: 60 });
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    // This machine has no network: without these Chromium keeps trying Google's services.
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
});
afterAll(async () => {
  await browser?.close();
  await model?.close();
});

/** A hosted page in a new tab, with every console error and uncaught exception it produces. */
async function openHostedPage(slug: string) {
  const page = await browser.newPage();
  const problems: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error") problems.push(message.text());
  });
  page.on("pageerror", (error) => problems.push(error.message));
  await page.goto(`${api.stack().baseUrl}/hosted/${slug}`);
  return { page, problems };
}

/**
 * The page as a desktop and a phone show it, saved to test-results/ (not committed: this test is
 * their generator). Full-page, so the height says how compact the list is.
 */
async function saveScreenshots(page: Page, name: string): Promise<void> {
  mkdirSync(OUTPUT, { recursive: true });
  for (const [width, label] of [[1280, "desktop"], [390, "phone"]] as const) {
    await page.setViewportSize({ width, height: 900 });
    await page.screenshot({ path: `${OUTPUT}${name}-${label}.png`, fullPage: true });
    expect(existsSync(`${OUTPUT}${name}-${label}.png`)).toBe(true);
  }
}

/** The little of the DOM the contrast check uses (the tests compile without the DOM library). */
interface PageNode {
  parentElement: PageNode | null;
}
interface PageGlobals {
  document: { querySelector(selector: string): PageNode | null };
  getComputedStyle(node: PageNode): { color: string; backgroundColor: string };
}

/** WCAG 2 contrast ratio of each element's text against the first opaque background behind it; runs in the page. */
function contrastRatios(selectors: string[]): Record<string, number> {
  const { document, getComputedStyle } = globalThis as unknown as PageGlobals;
  const channels = (color: string) => (color.match(/[\d.]+/g) ?? []).map(Number);
  const luminance = (color: string) => {
    const [r = 0, g = 0, b = 0] = channels(color).map((value) => {
      const c = value / 255;
      return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const background = (element: PageNode | null): string => {
    for (let node = element; node; node = node.parentElement) {
      const color = getComputedStyle(node).backgroundColor;
      if ((channels(color)[3] ?? 1) > 0) return color;
    }
    return "rgb(255, 255, 255)";
  };
  const ratios: Record<string, number> = {};
  for (const selector of selectors) {
    const element = document.querySelector(selector);
    if (!element) continue;
    const [light, dark] = [luminance(getComputedStyle(element).color), luminance(background(element))].sort((a, b) => b - a);
    ratios[selector] = (light! + 0.05) / (dark! + 0.05);
  }
  return ratios;
}

describe.runIf(available)("the hosted page in headless Chromium", () => {
  it("searches from the keyboard: a compact list of documents, highlighted snippets, Show more, source links, more results; no CSP error", async () => {
    const ns = await newNamespace(api);
    // One long document whose chunks match twice (grouped under one title), several short ones (more
    // than one screen of documents), and an uploaded file without a citation (a download link).
    const policy = [
      "Acme's returns policy explains how a purchase can be sent back and what happens next. ".repeat(6),
      "Refunds are paid within 14 days of the returned parcel arriving at the warehouse, to the card used for the order. ",
      "Parcels are inspected on arrival and a note is sent when the inspection ends. ".repeat(10),
      "Refunds for damaged goods are paid at once, without waiting for the parcel. ",
      "Gift cards cannot be exchanged for cash. ".repeat(8),
    ].join("\n");
    await ingestAndWait(ns, { type: "TEXT", text: policy, fileName: "returns-policy.md" }, { metadata: { url: "https://help.example.com/returns" }, chunkSize: 700 });
    for (const [name, text] of [
      ["shipping.md", "Shipping is free above 50 euros; refunds of shipping costs follow the returns policy."],
      ["warranty.md", "A repair under warranty is free; when a repair is impossible, a refund is paid instead."],
      ["gift-cards.md", "Gift cards are not refunded once used, and expire after two years."],
      ["subscriptions.md", "Subscriptions may be cancelled at any time; the unused months are refunded."],
      ["marketplace.md", "Marketplace sellers pay refunds themselves, within their own deadlines."],
    ]) {
      await ingestAndWait(ns, { type: "TEXT", text: text!, fileName: name }, { metadata: { url: `https://help.example.com/${name!.replace(".md", "")}` } });
    }
    const key = await upload(ns, "refund-form.txt", "text/plain", "Refund request form: order number, reason, and the refund account.");
    await ingestAndWait(ns, { type: "MANAGED_FILE", key, fileName: "refund-form.txt" });
    expect((await ns.call("POST", "/hosting")).status).toBe(201);
    const hosting = await ns.call("PATCH", "/hosting", {
      body: { protected: false, title: "Acme help", welcomeMessage: "Ask us anything.", citationMetadataPath: "url", exampleSearchQueries: ["refund window"], exampleQuestions: ["Cannot be answered"], topK: 15 },
    });
    const slug: string = hosting.body.data.slug;

    const { page, problems } = await openHostedPage(slug);
    expect(await page.title()).toBe("Acme help");
    await expect(page.getByRole("heading", { name: "Acme help" }).isVisible()).resolves.toBe(true);

    // Keyboard only: the field is reachable by its label, Enter submits.
    const field = page.getByLabel("Search Acme help");
    await field.focus();
    await page.keyboard.type("when are refunds paid");
    await page.keyboard.press("Enter");
    const documents = page.locator("#search-results > li");
    await documents.first().waitFor({ timeout: 10_000 });
    const status = await page.locator("#search-status").innerText();
    const [, passages, documentCount] = /^(\d+) passages? in (\d+) documents?\.$/.exec(status) ?? [];
    expect(Number(documentCount), status).toBe(7);
    expect(Number(passages)).toBeGreaterThan(7);

    // At most five documents at first, each once, titled by its name; the rest behind "More results".
    expect(await documents.count()).toBe(5);
    const policyResult = documents.filter({ has: page.getByRole("heading", { name: "returns-policy.md" }) });
    expect(await policyResult.count()).toBe(1);
    expect(await policyResult.locator("ol.passages > li").count()).toBeGreaterThan(1);
    expect(await policyResult.getByRole("link", { name: "returns-policy.md" }).getAttribute("href")).toBe("https://help.example.com/returns");

    // Snippets are short, with the query's words marked by stem ("refunds", "paid"); marks are elements, not markup in text.
    for (const text of await page.locator(".snippet").allInnerTexts()) expect(text.length).toBeLessThanOrEqual(310);
    const marks = await policyResult.locator("mark").allInnerTexts();
    expect(marks.map((mark) => mark.toLowerCase())).toEqual(expect.arrayContaining(["refunds", "paid"]));
    expect(await page.locator("#search-results").innerHTML()).not.toContain("&lt;mark");

    // "Show more" reveals the whole chunk, line breaks kept, and "Show less" folds it again.
    const passageId = await policyResult.getByRole("button", { name: "Show more" }).first().getAttribute("aria-controls");
    const snippet = page.locator(`#${passageId}`);
    const toggle = page.locator(`[aria-controls="${passageId}"]`);
    const before = (await snippet.innerText()).length;
    await toggle.click();
    expect(await toggle.getAttribute("aria-expanded")).toBe("true");
    expect(await toggle.innerText()).toBe("Show less");
    expect((await snippet.innerText()).length).toBeGreaterThan(before);
    await toggle.click();
    expect((await snippet.innerText()).length).toBe(before);

    // "More results" shows the remaining documents and moves focus to the first of them.
    const more = page.getByRole("button", { name: /More results/ });
    await more.click();
    expect(await documents.count()).toBe(7);
    expect(await more.isHidden()).toBe(true);
    expect(await page.evaluate(() => (globalThis as unknown as { document: { activeElement: { id: string } } }).document.activeElement.id)).toBe("result-6");

    // The uploaded file has no citation: its title links to a download through the page.
    const form = documents.filter({ has: page.getByRole("heading", { name: "refund-form.txt" }) });
    const href = await form.getByRole("link", { name: "refund-form.txt" }).getAttribute("href");
    expect(href).toMatch(new RegExp(`^/hosted/${slug}/documents/doc_[A-Za-z0-9_-]+/file$`));
    const download = await page.request.get(`${api.stack().baseUrl}${href}`);
    expect(download.status()).toBe(200);
    expect(await download.text()).toContain("Refund request form");

    // The tabs switch with the arrow keys; without a model the chat tab offers no example question.
    await page.getByRole("tab", { name: "Search" }).focus();
    await page.keyboard.press("ArrowRight");
    expect(await page.getByRole("tab", { name: "Chat" }).getAttribute("aria-selected")).toBe("true");
    expect(await page.locator("#panel-chat").isVisible()).toBe(true);
    expect(await page.locator("#panel-chat .example").count()).toBe(0);
    await page.keyboard.press("ArrowLeft");

    const ratios = await page.evaluate(contrastRatios, ["mark", ".hit-meta", "ol.results h3 a", ".show-more", ".more-results"]);
    for (const [selector, ratio] of Object.entries(ratios)) expect(ratio, `${selector} contrast`).toBeGreaterThanOrEqual(4.5);

    await page.getByLabel("Search Acme help").fill("when are refunds paid");
    await page.keyboard.press("Enter");
    await documents.first().waitFor();
    await saveScreenshots(page, "hosted-search");
    expect(problems).toEqual([]);
  });

  it("streams a chat answer into the page as it is written, with [n] links to the cited passages, in readable contrast", async () => {
    const ns = await newNamespace(api);
    await ingestAndWait(ns, { type: "TEXT", text: "Orders placed before 2 pm leave the Leeds warehouse the same day.", fileName: "dispatch.md" }, {
      metadata: { url: "https://help.example.com/dispatch" },
    });
    expect((await ns.call("POST", "/hosting")).status).toBe(201);
    const hosting = await ns.call("PATCH", "/hosting", {
      body: {
        protected: false,
        title: "Acme desk",
        citationMetadataPath: "url",
        exampleQuestions: ["When do orders ship?"],
        llmConfig: { provider: "OPENAI_COMPATIBLE", baseUrl: model.baseUrl, model: "desk-1" },
      },
    });
    const slug: string = hosting.body.data.slug;

    const { page, problems } = await openHostedPage(slug);

    // Keyboard only: to the Chat tab with the arrow key, then the labelled question field.
    await page.getByRole("tab", { name: "Search" }).focus();
    await page.keyboard.press("ArrowRight");
    const question = page.getByLabel("Ask Acme desk a question");
    await question.focus();
    await page.keyboard.type("When do orders placed in the morning ship?");
    await page.keyboard.press("Enter");

    // Seen part-way: some of the answer is on the page while the model is still writing.
    const answer = page.locator(".turn.answer p").first();
    const seen: string[] = [];
    const deadline = Date.now() + 15_000;
    while (Date.now() < deadline && (await page.locator("#chat-status").innerText()) !== "Answered.") {
      const text = await answer.innerText();
      if (text !== "" && seen.at(-1) !== text) seen.push(text);
      await page.waitForTimeout(20);
    }
    expect(await page.locator("#chat-status").innerText()).toBe("Answered.");
    const final = await answer.innerText();
    expect(final).toContain("[1]");
    expect(seen.length, `snapshots: ${JSON.stringify(seen)}`).toBeGreaterThan(2);
    expect(seen[0]!.length).toBeLessThan(final.length);

    // [1] links to the passage it cites, listed under the answer with its document and citation link.
    const citation = answer.getByRole("link", { name: /Source 1/ });
    expect(await citation.getAttribute("href")).toBe("#answer-1-source-1");
    const source = page.locator("#answer-1-source-1");
    expect(await source.innerText()).toContain("dispatch.md");
    expect(await source.getByRole("link").getAttribute("href")).toBe("https://help.example.com/dispatch");
    await citation.click();
    await source.locator("summary").click();
    expect(await source.innerText()).toContain("leave the Leeds warehouse the same day");

    const request = model.requests.at(-1)!;
    expect(JSON.stringify(request.body.messages)).toContain("leave the Leeds warehouse the same day");

    const ratios = await page.evaluate(contrastRatios, ["body", "label", ".hit-meta", "a", "[role=tab][aria-selected=true]", "[role=tab][aria-selected=false]", ".turn.question", ".turn.answer", "button[type=submit]"]);
    for (const [selector, ratio] of Object.entries(ratios)) expect(ratio, `${selector} contrast`).toBeGreaterThanOrEqual(4.5);
    expect(Object.keys(ratios).length).toBeGreaterThan(6);

    await saveScreenshots(page, "hosted-chat");
    expect(problems).toEqual([]);
  });

  it("signs a visitor in through the e-mailed link and then shows the protected page", async () => {
    const ns = await newNamespace(api);
    await ingestAndWait(ns, { type: "TEXT", text: "Onboarding takes three days for every new starter." });
    expect((await ns.call("POST", "/hosting")).status).toBe(201);
    const hosting = await ns.call("PATCH", "/hosting", { body: { title: "Staff", welcomeMessage: "Internal handbook", allowedEmailDomains: ["staff.example.com"] } });
    const slug: string = hosting.body.data.slug;

    const page = await browser.newPage();
    await page.goto(`${api.stack().baseUrl}/hosted/${slug}`);
    await page.getByLabel("E-mail address").fill("lin@staff.example.com");
    await page.getByRole("button", { name: "Send me a link" }).click();
    await page.getByText(/a sign-in link is on its way/).waitFor({ timeout: 10_000 });

    // The mail worker sends the link after the page has answered.
    const [mail] = await mailAfterQueue(api, "lin@staff.example.com");
    const link = /http\S+/.exec(mail!.text)![0];
    await page.goto(link);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(`${api.stack().baseUrl}/hosted/${slug}`);
    await page.getByText("Internal handbook").waitFor({ timeout: 10_000 });
  });
});
