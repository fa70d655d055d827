import { existsSync, mkdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { type Browser, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ingestAndWait, newNamespace } from "../support/ingestion.ts";
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
  it("searches from the keyboard, shows hits with their document and citation, and breaks no CSP rule", async () => {
    const ns = await newNamespace(api);
    await ingestAndWait(ns, { type: "TEXT", text: "Refunds are paid within 14 days of the returned parcel arriving.", fileName: "refunds.md" }, {
      metadata: { url: "https://help.example.com/refunds" },
    });
    expect((await ns.call("POST", "/hosting")).status).toBe(201);
    const hosting = await ns.call("PATCH", "/hosting", {
      body: { protected: false, title: "Acme help", welcomeMessage: "Ask us anything.", citationMetadataPath: "url", exampleSearchQueries: ["refund window"] },
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
    const first = page.locator("#search-results li").first();
    await first.waitFor({ timeout: 10_000 });
    expect(await first.innerText()).toContain("Refunds are paid within 14 days");
    expect(await first.innerText()).toContain("refunds.md");
    expect(await first.locator("a").getAttribute("href")).toBe("https://help.example.com/refunds");
    expect(await page.locator("#search-status").innerText()).toMatch(/result/);

    // The tabs switch with the arrow keys.
    await page.getByRole("tab", { name: "Search" }).focus();
    await page.keyboard.press("ArrowRight");
    expect(await page.getByRole("tab", { name: "Chat" }).getAttribute("aria-selected")).toBe("true");
    expect(await page.locator("#panel-chat").isVisible()).toBe(true);
    await page.keyboard.press("ArrowLeft");

    mkdirSync(OUTPUT, { recursive: true });
    await page.screenshot({ path: `${OUTPUT}hosted-page.png`, fullPage: true });
    expect(existsSync(`${OUTPUT}hosted-page.png`)).toBe(true);
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

    mkdirSync(OUTPUT, { recursive: true });
    await page.screenshot({ path: `${OUTPUT}hosted-chat.png`, fullPage: true });
    expect(existsSync(`${OUTPUT}hosted-chat.png`)).toBe(true);
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
