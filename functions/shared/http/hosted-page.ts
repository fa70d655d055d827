import type { HostingRecord } from "../domain/hosting.ts";
import { escapeHtml } from "./html.ts";

/**
 * A namespace's hosted page: one server-rendered HTML document built from its hosting
 * configuration, with a small inline script for the search tab (no framework, no CDN, so it works
 * offline on the local stack). Everything from the configuration is escaped; results are inserted
 * as text nodes only, their highlighted words as <mark> elements drawn from the ranges the server
 * computed (workflows/hosted-search.ts), so no content is ever parsed as HTML. The script and style
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

function meta(property: string, content: string | null): string {
  return content ? `<meta property="${property}" content="${escapeHtml(content)}">` : "";
}

function examples(label: string, id: string, items: readonly string[]): string {
  if (items.length === 0) return "";
  const buttons = items.map((item) => `<li><button type="button" class="example" data-target="${id}">${escapeHtml(item)}</button></li>`).join("");
  return `<h3>${escapeHtml(label)}</h3><ul class="examples">${buttons}</ul>`;
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

// Shared by both tabs' scripts: a citation is shown as a link when it is a web address, else as text.
const CITATION_SCRIPT = `
const citationNode = (citation) => {
  if (!/^https?:\\/\\//.test(citation)) return document.createTextNode(citation);
  const link = document.createElement('a');
  link.href = citation;
  link.rel = 'noopener noreferrer';
  link.textContent = citation;
  return link;
};
`;

const SCRIPT = `
(() => {
  const tabs = [...document.querySelectorAll('[role=tab]')];
  const select = (tab) => {
    for (const other of tabs) {
      const on = other === tab;
      other.setAttribute('aria-selected', String(on));
      other.tabIndex = on ? 0 : -1;
      document.getElementById(other.getAttribute('aria-controls')).hidden = !on;
    }
  };
  tabs.forEach((tab, index) => {
    tab.addEventListener('click', () => select(tab));
    tab.addEventListener('keydown', (event) => {
      const step = event.key === 'ArrowRight' ? 1 : event.key === 'ArrowLeft' ? -1 : 0;
      if (!step) return;
      const next = tabs[(index + step + tabs.length) % tabs.length];
      select(next);
      next.focus();
    });
  });
  const form = document.getElementById('search-form');
  if (!form) return;
  const input = document.getElementById('search-query');
  const status = document.getElementById('search-status');
  const list = document.getElementById('search-results');
  const more = document.getElementById('search-more');
  const page = location.pathname.replace(/\\/+$/, '');
  const endpoint = page + '/search';
  const GROUPS_PER_STEP = 5;
  let groups = [];
  let shown = 0;
  // Text with the query's words marked: ranges come from the server, text goes in as text nodes.
  const marked = (parent, text, highlights, start, end) => {
    let at = start;
    for (const range of highlights) {
      if (range.end <= at || range.start >= end) continue;
      const from = Math.max(range.start, at);
      const to = Math.min(range.end, end);
      if (from > at) parent.append(text.slice(at, from));
      const mark = document.createElement('mark');
      mark.textContent = text.slice(from, to);
      parent.append(mark);
      at = to;
    }
    if (at < end) parent.append(text.slice(at, end));
  };
  const showSnippet = (paragraph, hit) => {
    paragraph.replaceChildren();
    paragraph.classList.remove('whole');
    if (hit.snippet.start > 0) paragraph.append('… ');
    marked(paragraph, hit.text, hit.highlights, hit.snippet.start, hit.snippet.end);
    if (hit.snippet.end < hit.text.length) paragraph.append(' …');
  };
  const showWhole = (paragraph, hit) => {
    paragraph.replaceChildren();
    paragraph.classList.add('whole');
    marked(paragraph, hit.text, hit.highlights, 0, hit.text.length);
  };
  const where = (location) => {
    if (!location) return '';
    if (location.slide !== undefined) return 'Slide ' + location.slide;
    if (location.sheet !== undefined) return 'Sheet ' + location.sheet + (location.page !== undefined ? ', page ' + location.page : '');
    if (location.page !== undefined) return 'Page ' + location.page;
    return '';
  };
  const sourceHref = (hit) => {
    if (hit.citation && /^https?:\\/\\//.test(hit.citation)) return hit.citation;
    if (hit.sourceFile && hit.documentId) return page + '/documents/' + encodeURIComponent(hit.documentId) + '/file';
    return null;
  };
  const groupHits = (hits) => {
    const byDocument = new Map();
    for (const hit of hits) {
      const key = hit.documentId || hit.id;
      if (!byDocument.has(key)) byDocument.set(key, []);
      byDocument.get(key).push(hit);
    }
    return [...byDocument.values()];
  };
  const renderGroup = (hits, number) => {
    const item = document.createElement('li');
    item.className = 'document';
    const heading = document.createElement('h3');
    heading.id = 'result-' + number;
    heading.tabIndex = -1;
    const first = hits[0];
    const name = first.documentName || 'Untitled document';
    const href = hits.map(sourceHref).find(Boolean);
    if (href) {
      const link = document.createElement('a');
      link.href = href;
      link.rel = 'noopener noreferrer';
      link.textContent = name;
      heading.append(link);
    } else {
      heading.textContent = name;
    }
    item.append(heading);
    const info = document.createElement('p');
    info.className = 'hit-meta';
    const pieces = [];
    if (hits.length > 1) pieces.push(document.createTextNode(hits.length + ' passages'));
    const citations = [...new Set(hits.map((hit) => hit.citation).filter(Boolean))];
    for (const citation of citations) pieces.push(citationNode(citation));
    if (citations.length === 0 && href) {
      const download = document.createElement('a');
      download.href = href;
      download.textContent = 'Download the source file';
      pieces.push(download);
    }
    pieces.forEach((piece, index) => { if (index > 0) info.append(' · '); info.append(piece); });
    if (pieces.length > 0) item.append(info);
    const passages = document.createElement('ol');
    passages.className = 'passages';
    hits.forEach((hit, index) => {
      const passage = document.createElement('li');
      const label = where(hit.location);
      if (label) {
        const place = document.createElement('p');
        place.className = 'hit-meta place';
        place.textContent = label;
        passage.append(place);
      }
      const text = document.createElement('p');
      text.className = 'snippet';
      text.id = 'result-' + number + '-passage-' + (index + 1);
      showSnippet(text, hit);
      passage.append(text);
      if (hit.snippet.start > 0 || hit.snippet.end < hit.text.length) {
        const toggle = document.createElement('button');
        toggle.type = 'button';
        toggle.className = 'show-more';
        toggle.textContent = 'Show more';
        toggle.setAttribute('aria-expanded', 'false');
        toggle.setAttribute('aria-controls', text.id);
        toggle.addEventListener('click', () => {
          const open = toggle.getAttribute('aria-expanded') !== 'true';
          if (open) showWhole(text, hit); else showSnippet(text, hit);
          toggle.setAttribute('aria-expanded', String(open));
          toggle.textContent = open ? 'Show less' : 'Show more';
        });
        passage.append(toggle);
      }
      passages.append(passage);
    });
    item.append(passages);
    return item;
  };
  const showNext = () => {
    const next = groups.slice(shown, shown + GROUPS_PER_STEP);
    next.forEach((hits, index) => list.append(renderGroup(hits, shown + index + 1)));
    const firstNew = shown + 1;
    shown += next.length;
    more.hidden = shown >= groups.length;
    more.textContent = 'More results (' + (groups.length - shown) + ' more ' + (groups.length - shown === 1 ? 'document' : 'documents') + ')';
    return firstNew;
  };
  const plural = (count, one, many) => count + ' ' + (count === 1 ? one : many);
  const run = async () => {
    const query = input.value.trim();
    if (!query) return;
    status.textContent = 'Searching…';
    list.replaceChildren();
    more.hidden = true;
    try {
      const response = await fetch(endpoint, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query }) });
      const body = await response.json();
      if (!response.ok) { status.textContent = body.error ? body.error.message : 'The search failed.'; return; }
      groups = groupHits(body.data);
      shown = 0;
      status.textContent = body.data.length === 0 ? 'No results.' : plural(body.data.length, 'passage', 'passages') + ' in ' + plural(groups.length, 'document', 'documents') + '.';
      showNext();
    } catch {
      status.textContent = 'The search failed. Try again.';
    }
  };
  more.addEventListener('click', () => {
    const first = showNext();
    document.getElementById('result-' + first).focus();
  });
  form.addEventListener('submit', (event) => { event.preventDefault(); run(); });
  for (const button of document.querySelectorAll('.example[data-target=search]')) {
    button.addEventListener('click', () => { input.value = button.textContent; run(); });
  }
})();
`;

// The chat tab reads the answer as the AI SDK's UI message stream (http/ui-message-stream.ts) and
// shows each text delta as it arrives; [n] in the answer links to the source it names.
const CHAT_SCRIPT = `
(() => {
  const form = document.getElementById('chat-form');
  if (!form) return;
  const input = document.getElementById('chat-question');
  const button = form.querySelector('button[type=submit]');
  const log = document.getElementById('chat-log');
  const status = document.getElementById('chat-status');
  const endpoint = location.pathname.replace(/\\/+$/, '') + '/chat';
  const history = [];
  let turn = 0;
  const renderAnswer = (element, text, sources, prefix) => {
    element.replaceChildren();
    let last = 0;
    for (const match of text.matchAll(/\\[(\\d{1,3})\\]/g)) {
      const source = sources[Number(match[1]) - 1];
      if (!source) continue;
      element.append(text.slice(last, match.index));
      const link = document.createElement('a');
      link.href = '#' + prefix + source.index;
      link.textContent = match[0];
      link.setAttribute('aria-label', 'Source ' + source.index + (source.documentName ? ': ' + source.documentName : ''));
      element.append(link);
      last = match.index + match[0].length;
    }
    element.append(text.slice(last));
  };
  const renderSources = (container, sources, prefix) => {
    if (sources.length === 0) return;
    const list = document.createElement('ol');
    list.className = 'sources';
    for (const source of sources) {
      const item = document.createElement('li');
      item.id = prefix + source.index;
      item.tabIndex = -1;
      const title = document.createElement('span');
      title.textContent = source.documentName || 'Source ' + source.index;
      item.append(title);
      if (source.citation) item.append(' · ', citationNode(source.citation));
      const details = document.createElement('details');
      const summary = document.createElement('summary');
      summary.textContent = 'Passage';
      const text = document.createElement('p');
      text.textContent = source.text;
      details.append(summary, text);
      item.append(details);
      list.append(item);
    }
    const heading = document.createElement('p');
    heading.className = 'hit-meta';
    heading.textContent = 'Sources';
    container.append(heading, list);
  };
  const ask = async () => {
    const question = input.value.trim();
    if (!question) return;
    turn += 1;
    const prefix = 'answer-' + turn + '-source-';
    const asked = document.createElement('div');
    asked.className = 'turn question';
    asked.textContent = question;
    const answered = document.createElement('div');
    answered.className = 'turn answer';
    const answerText = document.createElement('p');
    answered.append(answerText);
    log.append(asked, answered);
    input.value = '';
    button.disabled = true;
    // Screen readers read the answer once it is complete, not once per streamed piece.
    log.setAttribute('aria-busy', 'true');
    status.textContent = 'Answering…';
    history.push({ role: 'user', content: question });
    let text = '';
    let sources = [];
    let failure = null;
    try {
      const response = await fetch(endpoint, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ messages: history }) });
      if (!response.ok || !response.body) {
        const body = await response.json().catch(() => null);
        failure = body && body.error ? body.error.message : 'The answer failed.';
      } else {
        const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
        let buffered = '';
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buffered += value;
          let end;
          while ((end = buffered.indexOf('\\n\\n')) !== -1) {
            const line = buffered.slice(0, end);
            buffered = buffered.slice(end + 2);
            if (!line.startsWith('data: ')) continue;
            const data = line.slice(6);
            if (data === '[DONE]') continue;
            const part = JSON.parse(data);
            if (part.type === 'data-sources') sources = part.data;
            else if (part.type === 'text-delta') { text += part.delta; renderAnswer(answerText, text, sources, prefix); }
            else if (part.type === 'error') failure = part.errorText;
          }
        }
      }
    } catch {
      failure = 'The answer failed. Try again.';
    }
    renderAnswer(answerText, text, sources, prefix);
    if (failure) {
      const note = document.createElement('p');
      note.className = 'error';
      note.textContent = failure;
      answered.append(note);
      history.pop();
    } else {
      history.push({ role: 'assistant', content: text });
      renderSources(answered, sources, prefix);
    }
    log.setAttribute('aria-busy', 'false');
    status.textContent = failure ? 'The answer failed.' : 'Answered.';
    button.disabled = false;
    input.focus();
  };
  form.addEventListener('submit', (event) => { event.preventDefault(); ask(); });
  for (const example of document.querySelectorAll('.example[data-target=chat]')) {
    example.addEventListener('click', () => { input.value = example.textContent; ask(); });
  }
})();
`;

export function renderHostedPage(hosting: HostingRecord, nonce: string, options: { canChat: boolean }): string {
  const title = hosting.title ?? hosting.slug;
  const description = hosting.ogDescription ?? hosting.welcomeMessage;
  const searchPanel = hosting.searchEnabled
    ? `<form id="search-form" role="search">
  <div class="field"><label for="search-query">Search ${escapeHtml(title)}</label>
  <input id="search-query" type="search" name="query" maxlength="1000" autocomplete="off" required></div>
  <button type="submit">Search</button>
</form>
${examples("Try searching for", "search", hosting.exampleSearchQueries)}
<p id="search-status" role="status" aria-live="polite"></p>
<ol id="search-results" class="results"></ol>
<button type="button" id="search-more" class="more-results" hidden>More results</button>`
    : `<p>Search is not enabled on this page.</p>`;
  const chatPanel = options.canChat
    ? `<div id="chat-log" class="chat-log" aria-live="polite"></div>
<form id="chat-form">
  <div class="field"><label for="chat-question">Ask ${escapeHtml(title)} a question</label>
  <input id="chat-question" type="text" name="question" maxlength="4000" autocomplete="off" required></div>
  <button type="submit">Ask</button>
</form>
${examples("Questions you could ask", "chat", hosting.exampleQuestions)}
<p id="chat-status" class="hit-meta" role="status"></p>`
    : // No example questions here: each would be a button that cannot be answered.
      `<p>Chat is not available on this page: no language model is configured for it (its owner can set one in the hosting's llmConfig).</p>`;
  return pageDocument({
    nonce,
    title,
    head: [
      description ? `<meta name="description" content="${escapeHtml(description)}">` : "",
      meta("og:title", hosting.ogTitle ?? title),
      meta("og:description", description),
      meta("og:image", hosting.ogImage ?? hosting.logo),
      '<meta property="og:type" content="website">',
    ],
    header: `${hosting.logo ? `<img src="${escapeHtml(hosting.logo)}" alt="${escapeHtml(title)} logo">` : ""}<h1>${escapeHtml(title)}</h1>`,
    main: `${hosting.welcomeMessage ? `<p class="welcome">${escapeHtml(hosting.welcomeMessage)}</p>` : ""}
<div role="tablist" aria-label="Ways to ask">
  <button type="button" role="tab" id="tab-search" aria-controls="panel-search" aria-selected="true">Search</button>
  <button type="button" role="tab" id="tab-chat" aria-controls="panel-chat" aria-selected="false" tabindex="-1">Chat</button>
</div>
<section id="panel-search" role="tabpanel" aria-labelledby="tab-search">${searchPanel}</section>
<section id="panel-chat" role="tabpanel" aria-labelledby="tab-chat" hidden>${chatPanel}</section>`,
    script: `(() => {${CITATION_SCRIPT}${SCRIPT}${CHAT_SCRIPT}})();`,
  });
}

const SIGN_IN_SCRIPT = `
(() => {
  const form = document.getElementById('sign-in-form');
  const input = document.getElementById('sign-in-email');
  const status = document.getElementById('sign-in-status');
  const endpoint = location.pathname.replace(/\\/+$/, '') + '/sign-in';
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    status.textContent = 'Sending…';
    try {
      const response = await fetch(endpoint, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: input.value }) });
      const body = await response.json();
      status.textContent = response.ok ? body.data.message : (body.error ? body.error.message : 'That did not work. Try again.');
    } catch {
      status.textContent = 'That did not work. Try again.';
    }
  });
})();
`;

/** What a visitor without a session sees of a protected page: its title, and a way to sign in. */
export function renderSignInPage(hosting: HostingRecord, nonce: string): string {
  return signInDocument(hosting, nonce, {
    main: `<p>This page is open to invited people only. Enter your e-mail address and we will send you a link that signs you in.</p>
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
    main: `<p>Sign in to ${escapeHtml(hosting.title ?? hosting.slug)} in this browser.</p>
<form method="post">
  <input type="hidden" name="token" value="${escapeHtml(token)}">
  <button type="submit">Sign in</button>
</form>`,
    script: "",
  });
}

/** The two sign-in pages: the page's title alone above their form, kept out of search engines. */
function signInDocument(hosting: HostingRecord, nonce: string, parts: { main: string; script: string }): string {
  const title = hosting.title ?? hosting.slug;
  return pageDocument({ nonce, title: `Sign in · ${title}`, head: ['<meta name="robots" content="noindex">'], header: `<h1>${escapeHtml(title)}</h1>`, ...parts });
}

/** The one HTML shell of the pages: head, shared style and the script, both under the response's nonce. */
function pageDocument(parts: { nonce: string; title: string; head: string[]; header: string; main: string; script: string }): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(parts.title)}</title>
${parts.head.filter((line) => line !== "").join("\n")}
<style nonce="${parts.nonce}">${STYLE}</style>
</head>
<body>
<header>${parts.header}</header>
<main>
${parts.main}
</main>
<script nonce="${parts.nonce}">${parts.script}</script>
</body>
</html>`;
}
