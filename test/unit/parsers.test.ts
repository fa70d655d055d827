import { describe, expect, it } from "vitest";
import { DocumentExtractionError } from "../../functions/shared/extraction/extraction-error.ts";
import { extractText, parseText, type TextFormat } from "../../functions/shared/extraction/text-formats.ts";

const utf8 = (text: string) => new TextEncoder().encode(text);
const parse = (format: TextFormat, input: string | Uint8Array) =>
  extractText(typeof input === "string" ? utf8(input) : input, format);
const textOf = (format: TextFormat, input: string | Uint8Array) => parse(format, input).text;

function parseError(format: TextFormat, input: string | Uint8Array): DocumentExtractionError {
  try {
    parse(format, input);
  } catch (error) {
    expect(error).toBeInstanceOf(DocumentExtractionError);
    return error as DocumentExtractionError;
  }
  throw new Error("expected a DocumentExtractionError");
}

function utf16(text: string, endian: "le" | "be"): Uint8Array {
  const bytes = new Uint8Array(2 + text.length * 2);
  bytes.set(endian === "le" ? [0xff, 0xfe] : [0xfe, 0xff]);
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    const [first, second] = endian === "le" ? [code & 0xff, code >> 8] : [code >> 8, code & 0xff];
    bytes[2 + index * 2] = first;
    bytes[3 + index * 2] = second;
  }
  return bytes;
}

/** Deterministic, so a failure found once is found again. */
function random(seed: number) {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) & 0x7fffffff;
    return state / 0x80000000;
  };
}

describe("decoding", () => {
  it("strips a UTF-8 byte-order mark", () => {
    expect(textOf("text", new Uint8Array([0xef, 0xbb, 0xbf, ...utf8("héllo")]))).toBe("héllo");
  });

  it("decodes UTF-16 in either byte order when a byte-order mark says so", () => {
    expect(textOf("text", utf16("Grüße, 世界\r\nline two", "le"))).toBe("Grüße, 世界\nline two");
    expect(textOf("markdown", utf16("# Grüße\n世界", "be"))).toBe("# Grüße\n世界");
  });

  it("normalises CRLF and lone CR line endings to LF", () => {
    expect(textOf("text", "one\r\ntwo\rthree\n\r\nfour")).toBe("one\ntwo\nthree\n\nfour");
  });

  it("rejects binary content that holds NUL bytes", () => {
    const bytes = utf8("looks like text at first\u0000\u0001\u0002 and then not");
    expect(parseError("text", bytes).message).toMatch(/^the file is not text: .*binary/);
  });

  it("names the binary formats people upload by mistake", () => {
    const pdf = utf8("%PDF-1.7\n%âãÏÓ\n1 0 obj");
    expect(parseError("text", pdf).message).toBe("the file is not text: it is a PDF document");
    const docx = new Uint8Array([0x50, 0x4b, 0x03, 0x04, 0x14, 0x00, 0x06, 0x00]);
    expect(parseError("markdown", docx).message).toMatch(/^the file is not text: .*\.docx/);
  });

  it("rejects UTF-16 without a byte-order mark with a hint to save it as UTF-8", () => {
    const bytes = utf16("plain ASCII written as UTF-16", "le").subarray(2);
    expect(parseError("text", bytes).message).toBe(
      "the file is not text: it looks like UTF-16 without a byte-order mark; save it as UTF-8",
    );
  });

  it("rejects UTF-32", () => {
    expect(parseError("text", new Uint8Array([0xff, 0xfe, 0, 0, 0x41, 0, 0, 0])).message).toMatch(/UTF-32/);
  });

  it("rejects bytes that are neither UTF-8 nor plausible text", () => {
    const next = random(7);
    const bytes = Uint8Array.from({ length: 20_000 }, () => 1 + Math.floor(next() * 255));
    expect(parseError("text", bytes).message).toMatch(/^the file is not text: it is not valid UTF-8/);
  });

  it("tolerates a few damaged bytes in otherwise valid UTF-8", () => {
    const bytes = new Uint8Array([...utf8("café ".repeat(200)), 0xff, ...utf8(" naïve")]);
    const text = textOf("text", bytes);
    expect(text.startsWith("café café")).toBe(true);
    expect(text.endsWith("\uFFFD naïve")).toBe(true);
  });

  it("reads Windows-1252 text such as Excel's CSV export", () => {
    // Ends in “ok”€ written with Windows-1252's curly quotes and euro sign.
    const ending = [0x93, 0x6f, 0x6b, 0x94, 0x80];
    const bytes = new Uint8Array([...Buffer.from("name;city;note\r\nJosé;Zürich;", "latin1"), ...ending]);
    expect(textOf("csv", bytes)).toBe("name: José\ncity: Zürich\nnote: \u201cok\u201d\u20ac");
  });

  it("refuses legacy encodings that would only decode to garbage", () => {
    // "Привет мир" in Windows-1251: every letter is a high byte, in long runs.
    const cyrillic = new Uint8Array([0xcf, 0xf0, 0xe8, 0xe2, 0xe5, 0xf2, 0x20, 0xec, 0xe8, 0xf0]);
    expect(parseError("text", cyrillic).message).toMatch(/^the file is not text: it is not valid UTF-8/);
  });

  it("turns an empty file into empty text for every format", () => {
    for (const format of ["text", "markdown", "html", "json", "jsonl", "csv", "tsv"] as const) {
      expect(parse(format, new Uint8Array())).toEqual({ text: "", format });
    }
  });
});

describe("plain text and Markdown", () => {
  it("keeps the text exactly as written apart from line endings", () => {
    const source = "# Title\r\n\r\n\tindented  with  spaces   \r\n\r\n\r\n* item\r\n```js\r\nconst a = 1;\r\n```\r\n";
    const parsed = parse("markdown", source);
    expect(parsed).toEqual({ text: source.replace(/\r\n/g, "\n"), format: "markdown" });
    expect(textOf("text", "a  b\t\tc\n\n\n  d ")).toBe("a  b\t\tc\n\n\n  d ");
  });

  it("reads TEXT payloads as Markdown with the same normalisation", () => {
    expect(parseText("\uFEFF# Notes\r\nline\rline")).toEqual({ text: "# Notes\nline\nline", format: "markdown" });
    expect(parseText("")).toEqual({ text: "", format: "markdown" });
  });
});

describe("HTML", () => {
  it("leads with the title and drops everything else in the head", () => {
    const html = `<html><head><title>Quarterly  report</title><meta charset="utf-8"><style>p { color: red }</style>
      <script>var secret = 1;</script><link rel="stylesheet" href="x.css"></head><body><p>Body text.</p></body></html>`;
    expect(textOf("html", html)).toBe("# Quarterly report\n\nBody text.");
  });

  it("does not repeat a title that the page's first heading already says", () => {
    expect(textOf("html", "<title>Guide</title><h1>Guide</h1><p>x</p>")).toBe("# Guide\n\nx");
  });

  it("turns headings into # lines and separates blocks with blank lines", () => {
    const html = "<h1>Top</h1><p>First paragraph.</p><h2>Sub <em>section</em></h2><p>Second<br>line</p><h6>Deep</h6>";
    expect(textOf("html", html)).toBe("# Top\n\nFirst paragraph.\n\n## Sub section\n\nSecond\nline\n\n###### Deep");
  });

  it("collapses whitespace outside <pre>", () => {
    const html = "<p>  lots   of\n\n   space\tand <b>bold</b>  text  </p>\n\n\n<div>  next </div><div>line</div>";
    expect(textOf("html", html)).toBe("lots of space and bold text\n\nnext\nline");
  });

  it("renders lists as - and numbered items, nested lists indented", () => {
    const html = `<ul><li>one</li><li><p>two</p><ul><li>two a</li><li>two b</li></ul></li><li>three</li></ul>
      <ol start="3"><li>third</li><li>fourth</li></ol><ol><li>first</li></ol>`;
    expect(textOf("html", html)).toBe(
      "- one\n- two\n  - two a\n  - two b\n- three\n\n3. third\n4. fourth\n\n1. first",
    );
  });

  it("keeps <pre> content verbatim in a fenced block, with the language when the class names one", () => {
    const html = `<p>Example:</p><pre><code class="language-python">
def add(a, b):
    return a  +  b   # spacing kept

print(add(1, 2))
</code></pre><p>Inline <code>x  =  1</code> code.</p>`;
    expect(textOf("html", html)).toBe(
      "Example:\n\n```python\ndef add(a, b):\n    return a  +  b   # spacing kept\n\nprint(add(1, 2))\n```\n\n" +
        "Inline `x = 1` code.",
    );
  });

  it("fences code that itself contains a fence with a longer one", () => {
    expect(textOf("html", "<pre>```\ninner\n```</pre>")).toBe("````\n```\ninner\n```\n````");
  });

  it("writes links as Markdown links and drops targets a reader cannot follow", () => {
    const html = `<p>See <a href="https://example.com/docs?q=1">the docs</a>, <a href="#top">back to top</a>,
      <a href="javascript:void(0)">menu</a>, <a href="https://example.com">https://example.com</a> and
      <a href="mailto:team@example.com">team@example.com</a>.</p>`;
    expect(textOf("html", html)).toBe(
      "See [the docs](https://example.com/docs?q=1), back to top, menu, https://example.com and team@example.com.",
    );
  });

  it("turns data tables into Markdown tables, one row per line", () => {
    const html = `<table><caption>Prices</caption><thead><tr><th>Item</th><th>Price</th></tr></thead>
      <tbody><tr><td>Tea | green</td><td>3</td></tr><tr><td>Coffee</td><td>4<br>(large 5)</td></tr>
      <tr><td></td><td></td></tr><tr><td>Water</td></tr></tbody></table><p>After.</p>`;
    expect(textOf("html", html)).toBe(
      "Prices\n\n| Item | Price |\n| --- | --- |\n| Tea \\| green | 3 |\n| Coffee | 4 (large 5) |\n| Water |  |\n\nAfter.",
    );
  });

  it("reads a one-column layout table as plain paragraphs", () => {
    const html = "<table><tr><td><p>Intro paragraph.</p><p>Another.</p></td></tr><tr><td>Footer</td></tr></table>";
    expect(textOf("html", html)).toBe("Intro paragraph.\n\nAnother.\n\nFooter");
  });

  it("decodes named and numeric entities", () => {
    const html = "<p>Tom &amp; Jerry &lt;3 caf&eacute; &#x263A; &#8364;5 a&nbsp;b &quot;q&quot; &copy;</p>";
    expect(textOf("html", html)).toBe('Tom & Jerry <3 café ☺ €5 a b "q" ©');
  });

  it("drops scripts, styles, noscript, templates and inline SVG", () => {
    const html = `<body><script>alert("x")</script><p>Kept</p><style>.a{}</style><noscript>Enable JS</noscript>
      <template><p>Template</p></template><svg><title>icon</title><path d="M0 0"/></svg><p>Also kept</p></body>`;
    expect(textOf("html", html)).toBe("Kept\n\nAlso kept");
  });

  it("quotes blockquotes and keeps image descriptions", () => {
    const html =
      '<blockquote><p>To be</p><p>or not</p></blockquote><p><img src="cat.png" alt="A sleeping cat"> on a mat</p>';
    expect(textOf("html", html)).toBe("> To be\n>\n> or not\n\nA sleeping cat on a mat");
  });

  it("copes with unclosed and stray tags", () => {
    const html = "<p>one<p>two</span><ul><li>a<li>b</ul><div><b>bold <i>both</b> after</div></p>";
    expect(textOf("html", html)).toBe("one\n\ntwo\n\n- a\n- b\n\nbold both after");
  });

  // How fast it refuses is measured in bench/text-parsers.ts.
  it("refuses pathologically deep nesting instead of hanging", () => {
    const error = parseError("html", "<div>".repeat(200_000) + "x");
    expect(error.message).toMatch(/nests elements more than \d+ levels deep/);
  });
});

describe("JSON", () => {
  it("pretty-prints with two spaces and every key on its own line", () => {
    const value = { title: "Handbook", meta: { author: "Ann", pages: 12, draft: false, editor: null }, empty: {} };
    const text = textOf("json", JSON.stringify(value));
    expect(text).toBe(JSON.stringify(value, null, 2));
    expect(text.split("\n")).toContain('    "author": "Ann",');
  });

  it("keeps numbers, key order and escapes as written", () => {
    const text = textOf("json", '{"b":1,"2":12345678901234567890,"a":1.50,"e":1E+3,"q":"say \\"hi\\"\\n"}');
    expect(text).toBe(
      '{\n  "b": 1,\n  "2": 12345678901234567890,\n  "a": 1.50,\n  "e": 1E+3,\n  "q": "say \\"hi\\"\\n"\n}',
    );
  });

  it("spells out \\u escapes so the text reads as the words it holds", () => {
    const text = textOf("json", '{"city":"Z\\u00fcrich","emoji":"\\ud83d\\ude00"}');
    expect(text).toBe('{\n  "city": "Zürich",\n  "emoji": "😀"\n}');
  });

  it("keeps short arrays of plain values on one line and breaks long ones", () => {
    const long = Array.from({ length: 30 }, (_, index) => `tag-${index}`);
    const text = textOf("json", JSON.stringify({ tags: ["a", "b"], point: [1.5, -2], long, nested: [[1, 2], []] }));
    expect(text).toContain('  "tags": ["a", "b"],\n  "point": [1.5, -2],\n  "long": [\n    "tag-0",\n');
    expect(text).toContain('  "nested": [\n    [1, 2],\n    []\n  ]\n}');
  });

  it("separates the records of a top-level array with blank lines", () => {
    const text = textOf("json", '[{"id":1},{"id":2}]');
    expect(text).toBe('[\n  {\n    "id": 1\n  },\n\n  {\n    "id": 2\n  }\n]');
  });

  it("produces text that still parses to the same value", () => {
    const value = { users: [{ name: "A", roles: ["x"], profile: { age: 3, tags: [] } }], count: 1, ok: true };
    expect(JSON.parse(textOf("json", JSON.stringify(value)))).toEqual(value);
    expect(JSON.parse(textOf("json", "  \"just a string\"  "))).toBe("just a string");
  });

  it("names the line and column of a syntax error", () => {
    const source = '{\n  "name": "x",\n  "size": 10\n  "next": true\n}';
    expect(parseError("json", source).message).toBe(
      "invalid JSON at line 4, column 3: expected ',' or '}' after a property value, found '\"'",
    );
  });

  it("explains the usual mistakes", () => {
    expect(parseError("json", '{"a": [1, 2,]}').message).toBe(
      "invalid JSON at line 1, column 13: a trailing comma before ']' is not allowed",
    );
    expect(parseError("json", '{"a": "unfinished').message).toBe(
      "invalid JSON at line 1, column 7: a string is never closed",
    );
    expect(parseError("json", "{'a': 1}").message).toBe(
      "invalid JSON at line 1, column 2: expected a property name in double quotes, found '''",
    );
    expect(parseError("json", '{"a": 1}\n{"a": 2}').message).toMatch(/^invalid JSON at line 2, column 1: .*\.jsonl/);
    expect(parseError("json", '{"a": NaN}').message).toBe("invalid JSON at line 1, column 7: expected a value, found 'N'");
    expect(parseError("json", '{"a": [1, 2}').message).toMatch(/^invalid JSON at line 1, column 12: /);
  });

  it("refuses absurd nesting and indents deep but sane nesting without blowing up", () => {
    const absurd = "[".repeat(1_000_000) + "]".repeat(1_000_000);
    expect(parseError("json", absurd).message).toMatch(/nested more than 512 levels/);
    const deep = textOf("json", '{"a":'.repeat(400) + "1" + "}".repeat(400));
    expect(Math.max(...deep.split("\n").map((line) => line.length))).toBeLessThan(60);
    expect(deep.split("\n")).toHaveLength(801);
  });
});

describe("JSON Lines", () => {
  it("renders each record pretty-printed, separated by blank lines, skipping empty lines", () => {
    const source = '{"id":1,"text":"first"}\r\n\r\n{"id":2,"tags":["a"]}\n  \n[1,2]\n';
    expect(textOf("jsonl", source)).toBe(
      '{\n  "id": 1,\n  "text": "first"\n}\n\n{\n  "id": 2,\n  "tags": ["a"]\n}\n\n[1, 2]',
    );
  });

  it("names the line of an invalid record", () => {
    const source = '{"id":1}\n{"id":2}\n\n{"id":3,}\n';
    expect(parseError("jsonl", source).message).toBe(
      "invalid JSON at line 4, column 9: a trailing comma before '}' is not allowed",
    );
    expect(parseError("jsonl", '{"id":1}\n{"id":\n2}').message).toMatch(/^invalid JSON at line 2, column 7: /);
  });
});

describe("CSV and TSV", () => {
  it("renders each row as header: value lines, rows separated by blank lines", () => {
    expect(textOf("csv", "name,role,team\nAnn,Engineer,Core\nBob,Designer,Web\n")).toBe(
      "name: Ann\nrole: Engineer\nteam: Core\n\nname: Bob\nrole: Designer\nteam: Web",
    );
  });

  it("handles quoted delimiters, doubled quotes and line breaks inside cells", () => {
    const source = 'title,body\r\n"Hello, world","She said ""hi""\r\nand left"\r\n"Gaps","one\r\n\r\n\r\ntwo"\r\n';
    expect(textOf("csv", source)).toBe('title: Hello, world\nbody: She said "hi"\nand left\n\ntitle: Gaps\nbody: one\ntwo');
  });

  it("tolerates ragged rows and leaves out empty cells", () => {
    const source = "a,b,c\n1,2\n3,,4,5,6\n,,\n";
    expect(textOf("csv", source)).toBe("a: 1\nb: 2\n\na: 3\nc: 4\ncolumn 4: 5\ncolumn 5: 6");
  });

  it("names blank headers by their position and trims cells", () => {
    expect(textOf("csv", "id, ,\n 7 , x , y ")).toBe("id: 7\ncolumn 2: x\ncolumn 3: y");
  });

  it("detects semicolon-separated files and reads TSV", () => {
    expect(textOf("csv", 'name;price\n"Tea; green";3,50\n')).toBe("name: Tea; green\nprice: 3,50");
    expect(textOf("tsv", "name\tnote\nAnn\thas, commas; and semicolons\n")).toBe(
      "name: Ann\nnote: has, commas; and semicolons",
    );
  });

  it("keeps a lone row rather than dropping it, and reads an empty file as empty text", () => {
    expect(textOf("csv", "just,one,row\n")).toBe("just | one | row");
    expect(textOf("csv", "\n\n")).toBe("");
  });

  it("reads a header behind a byte-order mark cleanly", () => {
    expect(textOf("csv", new Uint8Array([0xef, 0xbb, 0xbf, ...utf8("id,name\n1,x")]))).toBe("id: 1\nname: x");
  });

  it("reports an unclosed quote with its line", () => {
    const message = parseError("csv", 'a,b\n1,2\n3,"never closed\n4,5\n').message;
    expect(message).toMatch(/^invalid CSV: Quote Not Closed: .* at line \d+$/);
  });
});

describe("robustness", () => {
  it("throws nothing but DocumentExtractionError on random input of any format", () => {
    const next = random(42);
    const alphabet = [
      ..."{}[]\",:\\<>/a1 \n\r;\t&#-ue'=!",
      ...["p", "li", "tr", "td", "table", "pre", "&amp;", "<br>", "<a href=x>", "</a>"],
    ];
    const formats: TextFormat[] = ["text", "markdown", "html", "json", "jsonl", "csv", "tsv"];
    for (let round = 0; round < 400; round++) {
      const length = 1 + Math.floor(next() * 80);
      const source = Array.from({ length }, () => alphabet[Math.floor(next() * alphabet.length)]).join("");
      for (const format of formats) {
        try {
          expect(typeof parse(format, source).text).toBe("string");
        } catch (error) {
          if (error instanceof DocumentExtractionError) continue;
          throw new Error(`${format} threw ${String(error)} for ${JSON.stringify(source)}`);
        }
      }
    }
  });

  it("handles a single enormous line in every format without hanging", () => {
    const line = "word ".repeat(1_000_000);
    for (const format of ["text", "html", "csv", "tsv"] as const) {
      expect(textOf(format, line).length).toBeGreaterThan(4_000_000);
    }
    expect(textOf("json", JSON.stringify(line)).length).toBe(line.length + 2);
  });
});

// Throughput on 5 MB of each format is measured in bench/text-parsers.ts, not asserted here.
