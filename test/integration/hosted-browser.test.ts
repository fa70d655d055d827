import { existsSync, mkdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { type Browser, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ingestAndWait, newNamespace } from "../support/ingestion.ts";
import { useLocalStack } from "../support/local-stack.ts";

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

beforeAll(async () => {
  if (!available) return;
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    // This machine has no network: without these Chromium keeps trying Google's services.
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
});
afterAll(async () => browser?.close());

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

    const page = await browser.newPage();
    const problems: string[] = [];
    page.on("console", (message) => {
      if (message.type() === "error") problems.push(message.text());
    });
    page.on("pageerror", (error) => problems.push(error.message));
    await page.goto(`${api.stack().baseUrl}/hosted/${slug}`);
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

    const { readdir, readFile } = await import("node:fs/promises");
    const folder = api.stack().outboxDir;
    const mails = await Promise.all((await readdir(folder)).map(async (file) => JSON.parse(await readFile(`${folder}/${file}`, "utf8"))));
    const link = /http\S+/.exec(mails.find((mail) => mail.to === "lin@staff.example.com")!.text)![0];
    await page.goto(link);
    expect(page.url()).toBe(`${api.stack().baseUrl}/hosted/${slug}`);
    await page.getByText("Internal handbook").waitFor({ timeout: 10_000 });
  });
});
