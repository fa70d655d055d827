import type { HostingRecord } from "../../domain/hosting.ts";
import { html, raw, type SafeHtml } from "../html.ts";
import { HOSTED_PAGE_SCRIPT, SIGN_IN_SCRIPT } from "./scripts.generated.ts";

/**
 * A namespace's hosted page: one server-rendered HTML document built from its hosting
 * configuration, with a small inline script for the search and chat tabs (no framework, no CDN, so
 * it works offline on the local stack). The markup is built with `html`, which escapes everything
 * it is given; the script is ./browser/, bundled into scripts.generated.ts, and inserts results as
 * text nodes only, their highlighted words as <mark> elements drawn from the ranges the server
 * computed (workflows/hosted/search.ts), so no content is ever parsed as HTML. The script and style
 * run under a per-response nonce (see `hostedPageHeaders`).
 */

export function hostedPageHeaders(nonce: string): Record<string, string> {
  return {
    "content-type": "text/html; charset=utf-8",
    "cache-control": "no-store",
    "content-security-policy": [
      "default-src 'none'",
      `script-src 'nonce-${nonce}'`,
      `style-src 'nonce-${nonce}'`,
      "img-src https: data:",
      "connect-src 'self'",
      "base-uri 'none'",
      "form-action 'self'",
      "frame-ancestors 'none'",
    ].join("; "),
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
  };
}

function meta(property: string, content: string | null): SafeHtml | null {
  return content ? html`<meta property="${property}" content="${content}">` : null;
}

function examples(label: string, id: string, items: readonly string[]): SafeHtml | null {
  if (items.length === 0) return null;
  const buttons = items.map((item) => html`<li><button type="button" class="example" data-target="${id}">${item}</button></li>`);
  return html`<h3>${label}</h3><ul class="examples">${buttons}</ul>`;
}

const STYLE = `
body{font:16px/1.5 system-ui,sans-serif;margin:0;color:#1a1a1a;background:#fff}
header{display:flex;gap:1rem;align-items:center;padding:1rem 1.5rem;border-bottom:1px solid #d0d0d0}
header img{max-height:48px;max-width:160px}
main{max-width:52rem;margin:0 auto;padding:1rem 1.5rem}
h1{font-size:1.5rem;margin:0}
[role=tablist]{display:flex;gap:.5rem;margin:1rem 0}
[role=tab]{font:inherit;padding:.4rem 1rem;border:1px solid #5a5a5a;background:#fff;color:#1a1a1a;border-radius:4px;cursor:pointer}
[role=tab][aria-selected=true]{background:#1a1a1a;color:#fff}
button:focus-visible,input:focus-visible,a:focus-visible,h3:focus-visible{outline:3px solid #0b57d0;outline-offset:2px}
form{display:flex;gap:.5rem;align-items:flex-end}
.field{flex:1}
label{display:block;font-weight:600;margin-bottom:.25rem}
input[type=search],input[type=email],input[type=text]{width:100%;box-sizing:border-box;font:inherit;padding:.4rem;border:1px solid #5a5a5a;border-radius:4px}
button[type=submit],.example{font:inherit;padding:.4rem .8rem;border:1px solid #1a1a1a;background:#f2f2f2;color:#1a1a1a;border-radius:4px;cursor:pointer}
.examples{list-style:none;padding:0;display:flex;flex-wrap:wrap;gap:.5rem}
ol.results{list-style:none;padding:0;margin:0}
ol.results>li{margin:0;padding:.75rem 0;border-bottom:1px solid #e0e0e0}
ol.results h3{font-size:1.05rem;margin:0;overflow-wrap:anywhere}
ol.passages{list-style:none;padding:0;margin:.25rem 0 0}
ol.passages>li{margin:.5rem 0 0;padding-left:.75rem;border-left:3px solid #d0d0d0}
.snippet{margin:.1rem 0;overflow-wrap:anywhere}
.snippet.whole{white-space:pre-line}
mark{background:#fff0a8;color:#1a1a1a;padding:0 .1em;border-radius:2px}
.place{margin:0}
.show-more{font:inherit;font-size:.875rem;padding:0;border:0;background:none;color:#0b57d0;text-decoration:underline;cursor:pointer}
.more-results{font:inherit;margin:1rem 0;padding:.4rem .8rem;border:1px solid #1a1a1a;background:#f2f2f2;color:#1a1a1a;border-radius:4px;cursor:pointer}
.hit-meta{color:#4a4a4a;font-size:.875rem;margin:.1rem 0;overflow-wrap:anywhere}
a{color:#0b57d0}
.chat-log{display:flex;flex-direction:column;gap:.75rem;margin:1rem 0}
.turn{padding:.5rem .75rem;border-radius:6px}
.question{align-self:flex-end;background:#e8eefc}
.answer{background:#f4f4f4}
.answer p{margin:.25rem 0}
ol.sources{font-size:.875rem;padding-left:1.25rem}
.error{color:#a50e0e}
`;

export function renderHostedPage(hosting: HostingRecord, nonce: string, options: { canChat: boolean }): string {
  const title = hosting.title;
  const description = hosting.ogDescription ?? hosting.welcomeMessage;
  const searchPanel = hosting.searchEnabled
    ? html`<form id="search-form" role="search">
  <div class="field"><label for="search-query">Search ${title}</label>
  <input id="search-query" type="search" name="query" maxlength="1000" autocomplete="off" required></div>
  <button type="submit">Search</button>
</form>
${examples("Try searching for", "search", hosting.exampleSearchQueries)}
<p id="search-status" role="status" aria-live="polite"></p>
<ol id="search-results" class="results"></ol>
<button type="button" id="search-more" class="more-results" hidden>More results</button>`
    : html`<p>Search is not enabled on this page.</p>`;
  const chatPanel = options.canChat
    ? html`<div id="chat-log" class="chat-log" aria-live="polite"></div>
<form id="chat-form">
  <div class="field"><label for="chat-question">Ask ${title} a question</label>
  <input id="chat-question" type="text" name="question" maxlength="4000" autocomplete="off" required></div>
  <button type="submit">Ask</button>
</form>
${examples("Questions you could ask", "chat", hosting.exampleQuestions)}
<p id="chat-status" class="hit-meta" role="status"></p>`
    : // No example questions here: each would be a button that cannot be answered.
      html`<p>Chat is not available on this page: no language model is configured for it (its owner can set one in the hosting's llmConfig).</p>`;
  const logo = hosting.logo;
  return pageDocument({
    nonce,
    title,
    head: [
      description ? html`<meta name="description" content="${description}">` : null,
      meta("og:title", hosting.ogTitle ?? title),
      meta("og:description", description),
      meta("og:image", hosting.ogImage ?? logo),
      html`<meta property="og:type" content="website">`,
    ],
    header: html`${logo ? html`<img src="${logo}" alt="${title} logo">` : null}<h1>${title}</h1>`,
    main: html`${hosting.welcomeMessage ? html`<p class="welcome">${hosting.welcomeMessage}</p>` : null}
<div role="tablist" aria-label="Ways to ask">
  <button type="button" role="tab" id="tab-search" aria-controls="panel-search" aria-selected="true">Search</button>
  <button type="button" role="tab" id="tab-chat" aria-controls="panel-chat" aria-selected="false" tabindex="-1">Chat</button>
</div>
<section id="panel-search" role="tabpanel" aria-labelledby="tab-search">${searchPanel}</section>
<section id="panel-chat" role="tabpanel" aria-labelledby="tab-chat" hidden>${chatPanel}</section>`,
    script: HOSTED_PAGE_SCRIPT,
  });
}

/** What a visitor without a session sees of a protected page: its title, and a way to sign in. */
export function renderSignInPage(hosting: HostingRecord, nonce: string): string {
  return signInDocument(hosting, nonce, {
    main: html`<p>This page is open to invited people only. Enter your e-mail address and we will send you a link that signs you in.</p>
<form id="sign-in-form">
  <div class="field"><label for="sign-in-email">E-mail address</label>
  <input id="sign-in-email" type="email" name="email" maxlength="254" autocomplete="email" required></div>
  <button type="submit">Send me a link</button>
</form>
<p id="sign-in-status" role="status" aria-live="polite"></p>`,
    script: SIGN_IN_SCRIPT,
  });
}

/**
 * What the e-mailed link opens: a button that signs in. Opening the link uses nothing up, so a
 * mail scanner that fetches every link in a message cannot spend it; the visitor's click (a POST of
 * the token, same origin only) does. Its referrer policy is `same-origin`, not the pages'
 * `no-referrer`, because under `no-referrer` browsers send the form's Origin as "null", and the
 * sign-in checks that the post comes from this origin; the token-bearing URL still never leaves it.
 */
export function signInConfirmationHeaders(nonce: string): Record<string, string> {
  return { ...hostedPageHeaders(nonce), "referrer-policy": "same-origin" };
}

/** The page of the e-mailed link (see signInConfirmationHeaders). */
export function renderSignInConfirmation(hosting: HostingRecord, nonce: string, token: string): string {
  return signInDocument(hosting, nonce, {
    main: html`<p>Sign in to ${hosting.title} in this browser.</p>
<form method="post">
  <input type="hidden" name="token" value="${token}">
  <button type="submit">Sign in</button>
</form>`,
    script: "",
  });
}

/** The two sign-in pages: the page's title alone above their form, kept out of search engines. */
function signInDocument(hosting: HostingRecord, nonce: string, parts: { main: SafeHtml; script: string }): string {
  const title = hosting.title;
  return pageDocument({ nonce, title: `Sign in · ${title}`, head: [html`<meta name="robots" content="noindex">`], header: html`<h1>${title}</h1>`, ...parts });
}

/**
 * The one HTML shell of the pages: head, shared style and the script, both under the response's
 * nonce. The style and the script are the service's own text (the script bundled from ./browser/),
 * so they go in raw.
 */
function pageDocument(parts: { nonce: string; title: string; head: (SafeHtml | null)[]; header: SafeHtml; main: SafeHtml; script: string }): string {
  const head = parts.head.filter((line) => line !== null);
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${parts.title}</title>
${head.map((line, index) => (index === 0 ? line : html`\n${line}`))}
<style nonce="${parts.nonce}">${raw(STYLE)}</style>
</head>
<body>
<header>${parts.header}</header>
<main>
${parts.main}
</main>
<script nonce="${parts.nonce}">${raw(parts.script)}</script>
</body>
</html>`.value;
}
