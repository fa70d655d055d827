import { describe, expect, it } from "vitest";
import { html, raw } from "../../functions/shared/http/html.ts";

describe("the html template tag", () => {
  it("escapes <, >, &, double and single quotes in every interpolation", () => {
    const text = `<script>alert("x" & 'y')</script>`;
    expect(html`<p title="${text}">${text}</p>`.value).toBe(
      `<p title="&lt;script&gt;alert(&quot;x&quot; &amp; &#39;y&#39;)&lt;/script&gt;">&lt;script&gt;alert(&quot;x&quot; &amp; &#39;y&#39;)&lt;/script&gt;</p>`,
    );
  });

  it("does not escape a nested template twice, and escapes the text inside it once", () => {
    const inner = html`<b>${"a & b"}</b>`;
    expect(html`<p>${inner}</p>`.value).toBe("<p><b>a &amp; b</b></p>");
  });

  it("joins lists and leaves out null, undefined and false", () => {
    const items = ["<1>", "2"].map((item) => html`<li>${item}</li>`);
    expect(html`<ul>${items}</ul>${null}${undefined}${false}${0}`.value).toBe("<ul><li>&lt;1&gt;</li><li>2</li></ul>0");
  });

  it("puts in a raw fragment as it is, and a plain string never", () => {
    expect(html`${raw("<em>trusted</em>")}|${"<em>text</em>"}`.value).toBe("<em>trusted</em>|&lt;em&gt;text&lt;/em&gt;");
  });
});
