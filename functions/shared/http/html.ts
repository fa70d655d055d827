/** Text made safe for HTML content and double- or single-quoted attributes. */
export function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;");
}

/** HTML that is already safe: what `html` returns, and what `raw` marks as trusted. */
export class SafeHtml {
  constructor(readonly value: string) {}

  toString(): string {
    return this.value;
  }
}

/**
 * What may be interpolated into `html`: text (escaped), safe HTML (as it is), lists of either
 * (joined), and nothing (`null`, `undefined`, `false`: left out, for `cond && html\`…\``).
 */
export type HtmlValue = string | number | SafeHtml | null | undefined | false | readonly HtmlValue[];

/**
 * Builds HTML from a template whose interpolations are escaped unless they are SafeHtml, so text
 * from a configuration or a request cannot become markup by forgetting a call; nested `html`
 * templates are SafeHtml and are not escaped twice.
 */
export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): SafeHtml {
  let out = strings[0]!;
  values.forEach((value, index) => {
    out += render(value) + strings[index + 1]!;
  });
  return new SafeHtml(out);
}

/** Marks a fragment as trusted HTML: only for text the service itself wrote (a bundled script, a style sheet). */
export function raw(trusted: string): SafeHtml {
  return new SafeHtml(trusted);
}

function render(value: HtmlValue): string {
  if (value === null || value === undefined || value === false) return "";
  if (value instanceof SafeHtml) return value.value;
  if (Array.isArray(value)) return value.map(render).join("");
  return escapeHtml(String(value));
}
