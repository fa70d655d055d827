/** An element the server-rendered page is known to contain; a missing one is a bug in the page, not a visitor's. */
export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const element = document.getElementById(id);
  if (!element) throw new Error(`the page has no #${id}`);
  return element as T;
}

/** The page's own path without trailing slashes: the endpoints hang off it. */
export function pagePath(): string {
  return location.pathname.replace(/\/+$/, "");
}

const WEB_ADDRESS = /^https?:\/\//;

export function isWebAddress(text: string): boolean {
  return WEB_ADDRESS.test(text);
}

/** A citation is shown as a link when it is a web address, else as text. */
export function citationNode(citation: string): Node {
  if (!isWebAddress(citation)) return document.createTextNode(citation);
  const link = document.createElement("a");
  link.href = citation;
  link.rel = "noopener noreferrer";
  link.textContent = citation;
  return link;
}

/** The spec's error envelope, as far as the pages read it. */
export interface ErrorBody {
  error?: { message: string };
}

/** POSTs JSON to one of the page's endpoints. */
export function postJson(endpoint: string, body: unknown): Promise<Response> {
  return fetch(endpoint, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
}
