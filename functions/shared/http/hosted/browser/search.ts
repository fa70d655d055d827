import { byId, citationNode, type ErrorBody, isWebAddress, pagePath, postJson } from "./dom.ts";

/** A hit as POST /hosted/{slug}/search returns it (domain/hosted/page.ts HostedSearchHit). */
interface SearchHit {
  id: string;
  text: string;
  documentId: string | null;
  documentName: string | null;
  citation: string | null;
  location: { page?: number; slide?: number; sheet?: string } | null;
  snippet: TextRange;
  highlights: TextRange[];
  sourceFile: boolean;
}

interface TextRange {
  start: number;
  end: number;
}

const GROUPS_PER_STEP = 5;

/**
 * The search tab: posts the query, groups the hits by document and shows five documents at a time.
 * Text goes in as text nodes only and the query's words as <mark> elements drawn from the ranges
 * the server computed, so no content is ever parsed as HTML.
 */
export function setUpSearch(): void {
  const form = document.getElementById("search-form");
  if (!form) return;
  const input = byId<HTMLInputElement>("search-query");
  const status = byId("search-status");
  const list = byId("search-results");
  const more = byId("search-more");
  const page = pagePath();
  const endpoint = `${page}/search`;
  let groups: SearchHit[][] = [];
  let shown = 0;

  const sourceHref = (hit: SearchHit): string | null => {
    if (hit.citation && isWebAddress(hit.citation)) return hit.citation;
    if (hit.sourceFile && hit.documentId) return `${page}/documents/${encodeURIComponent(hit.documentId)}/file`;
    return null;
  };

  const renderGroup = (hits: SearchHit[], number: number): HTMLElement => {
    const item = document.createElement("li");
    item.className = "document";
    const heading = document.createElement("h3");
    heading.id = `result-${number}`;
    heading.tabIndex = -1;
    const name = hits[0]?.documentName || "Untitled document";
    const href = hits.map(sourceHref).find(Boolean);
    if (href) {
      const link = document.createElement("a");
      link.href = href;
      link.rel = "noopener noreferrer";
      link.textContent = name;
      heading.append(link);
    } else {
      heading.textContent = name;
    }
    item.append(heading);
    const info = document.createElement("p");
    info.className = "hit-meta";
    const pieces: Node[] = [];
    if (hits.length > 1) pieces.push(document.createTextNode(`${hits.length} passages`));
    const citations = [...new Set(hits.map((hit) => hit.citation).filter((citation): citation is string => Boolean(citation)))];
    for (const citation of citations) pieces.push(citationNode(citation));
    if (citations.length === 0 && href) {
      const download = document.createElement("a");
      download.href = href;
      download.textContent = "Download the source file";
      pieces.push(download);
    }
    pieces.forEach((piece, index) => {
      if (index > 0) info.append(" · ");
      info.append(piece);
    });
    if (pieces.length > 0) item.append(info);
    const passages = document.createElement("ol");
    passages.className = "passages";
    hits.forEach((hit, index) => passages.append(renderPassage(hit, `result-${number}-passage-${index + 1}`)));
    item.append(passages);
    return item;
  };

  const showNext = (): number => {
    const next = groups.slice(shown, shown + GROUPS_PER_STEP);
    next.forEach((hits, index) => list.append(renderGroup(hits, shown + index + 1)));
    const firstNew = shown + 1;
    shown += next.length;
    const left = groups.length - shown;
    more.hidden = shown >= groups.length;
    more.textContent = `More results (${left} more ${left === 1 ? "document" : "documents"})`;
    return firstNew;
  };

  const run = async (): Promise<void> => {
    const query = input.value.trim();
    if (!query) return;
    status.textContent = "Searching…";
    list.replaceChildren();
    more.hidden = true;
    try {
      const response = await postJson(endpoint, { query });
      const body = (await response.json()) as { data: SearchHit[] } & ErrorBody;
      if (!response.ok) {
        status.textContent = body.error ? body.error.message : "The search failed.";
        return;
      }
      groups = groupByDocument(body.data);
      shown = 0;
      status.textContent =
        body.data.length === 0 ? "No results." : `${plural(body.data.length, "passage", "passages")} in ${plural(groups.length, "document", "documents")}.`;
      showNext();
    } catch {
      status.textContent = "The search failed. Try again.";
    }
  };

  more.addEventListener("click", () => {
    const first = showNext();
    document.getElementById(`result-${first}`)?.focus();
  });
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    void run();
  });
  for (const button of document.querySelectorAll<HTMLElement>(".example[data-target=search]")) {
    button.addEventListener("click", () => {
      input.value = button.textContent ?? "";
      void run();
    });
  }
}

/** One passage: where it is, its snippet, and a "Show more" toggle when the snippet is not the whole text. */
function renderPassage(hit: SearchHit, id: string): HTMLElement {
  const passage = document.createElement("li");
  const label = where(hit.location);
  if (label) {
    const place = document.createElement("p");
    place.className = "hit-meta place";
    place.textContent = label;
    passage.append(place);
  }
  const text = document.createElement("p");
  text.className = "snippet";
  text.id = id;
  showSnippet(text, hit);
  passage.append(text);
  if (hit.snippet.start > 0 || hit.snippet.end < hit.text.length) {
    const toggle = document.createElement("button");
    toggle.type = "button";
    toggle.className = "show-more";
    toggle.textContent = "Show more";
    toggle.setAttribute("aria-expanded", "false");
    toggle.setAttribute("aria-controls", text.id);
    toggle.addEventListener("click", () => {
      const open = toggle.getAttribute("aria-expanded") !== "true";
      if (open) showWhole(text, hit);
      else showSnippet(text, hit);
      toggle.setAttribute("aria-expanded", String(open));
      toggle.textContent = open ? "Show less" : "Show more";
    });
    passage.append(toggle);
  }
  return passage;
}

/** `text` from `start` to `end` with the query's words marked. */
function marked(parent: HTMLElement, text: string, highlights: TextRange[], start: number, end: number): void {
  let at = start;
  for (const range of highlights) {
    if (range.end <= at || range.start >= end) continue;
    const from = Math.max(range.start, at);
    const to = Math.min(range.end, end);
    if (from > at) parent.append(text.slice(at, from));
    const mark = document.createElement("mark");
    mark.textContent = text.slice(from, to);
    parent.append(mark);
    at = to;
  }
  if (at < end) parent.append(text.slice(at, end));
}

function showSnippet(paragraph: HTMLElement, hit: SearchHit): void {
  paragraph.replaceChildren();
  paragraph.classList.remove("whole");
  if (hit.snippet.start > 0) paragraph.append("… ");
  marked(paragraph, hit.text, hit.highlights, hit.snippet.start, hit.snippet.end);
  if (hit.snippet.end < hit.text.length) paragraph.append(" …");
}

function showWhole(paragraph: HTMLElement, hit: SearchHit): void {
  paragraph.replaceChildren();
  paragraph.classList.add("whole");
  marked(paragraph, hit.text, hit.highlights, 0, hit.text.length);
}

function where(location: SearchHit["location"]): string {
  if (!location) return "";
  if (location.slide !== undefined) return `Slide ${location.slide}`;
  if (location.sheet !== undefined) return `Sheet ${location.sheet}${location.page !== undefined ? `, page ${location.page}` : ""}`;
  if (location.page !== undefined) return `Page ${location.page}`;
  return "";
}

function groupByDocument(hits: SearchHit[]): SearchHit[][] {
  const byDocument = new Map<string, SearchHit[]>();
  for (const hit of hits) {
    const key = hit.documentId || hit.id;
    const group = byDocument.get(key);
    if (group) group.push(hit);
    else byDocument.set(key, [hit]);
  }
  return [...byDocument.values()];
}

function plural(count: number, one: string, many: string): string {
  return `${count} ${count === 1 ? one : many}`;
}
