/**
 * Makes the documents of the fidelity benchmark (bench/fidelity.ts) and of the fidelity tests with
 * the third-party tools people make documents with, from real text, into test/fixtures/fidelity/.
 * The outputs are committed (about 1 MB), so tests and CI need none of these tools; run this again
 * only to remake them. Needs Debian's pandoc, LibreOffice (headless), groff, ghostscript and qpdf:
 *
 *   apt-get update && apt-get install -y pandoc libreoffice-writer-nogui libreoffice-calc-nogui \
 *     groff ghostscript qpdf fonts-dejavu-core fonts-noto-core gettext
 *   npx tsx scripts/fidelity-fixtures.ts
 *
 * Sources, all shipped by Debian: the GNU GPL versions 2 and 3 (/usr/share/common-licenses), the
 * find(1) manual page (findutils), Arabic sentences of apt's own translation (apt.mo), ISO 3166 and
 * ISO 639-2 code lists (iso-codes), and a pdfTeX manual (libtasn1-doc), copied as Debian built it.
 * Each source is kept beside what was made from it, so the benchmark compares against the text its
 * authors wrote (fidelity-sources.ts reads them).
 */
import { execFileSync } from "node:child_process";
import { copyFileSync, existsSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { FIDELITY_FIXTURES } from "../test/fixtures/fidelity-sources.ts";

const out = FIDELITY_FIXTURES;
const work = mkdtempSync(join(tmpdir(), "fidelity-"));

function run(command: string, args: readonly string[], options: { input?: string | Buffer; cwd?: string } = {}): Buffer {
  return execFileSync(command, args, { input: options.input, cwd: options.cwd ?? work, maxBuffer: 64 * 1024 * 1024, stdio: ["pipe", "pipe", "inherit"] });
}

/** LibreOffice's converter, with a profile of its own so a running office or another user's settings change nothing. */
function soffice(input: string, filter: string, outName: string): void {
  run("soffice", [`-env:UserInstallation=file://${join(work, "profile")}`, "--headless", "--convert-to", filter, "--outdir", join(work, "lo"), input]);
  const made = join(work, "lo", input.replace(/^.*\//, "").replace(/\.[^.]+$/, "") + "." + filter.split(":")[0]);
  renameSync(made, join(out, outName));
}

/**
 * A licence's plain text as Markdown, as its layout says: centred lines are headings, a numbered
 * one-line block ("0. Definitions.") is a section heading, a numbered paragraph ("0. This License
 * applies...") an ordered-list item whose following paragraphs belong to it until the next heading,
 * and "a) ..." paragraphs alphabetic sub-items.
 */
function licenceToMarkdown(text: string): string {
  const blocks = text.split(/\n\s*\n/).filter((block) => block.trim() !== "");
  const out: string[] = [];
  let titled = false;
  let inItem = false;
  const paragraph = (lines: readonly string[]) => lines.map((line) => line.trim()).join(" ").replace(/\s+/g, " ");
  for (const block of blocks) {
    const lines = block.split("\n");
    const centred = lines.every((line) => /^ {8,}\S/.test(line));
    const first = lines[0]!;
    if (centred || /^ {8,}\S/.test(first)) {
      // The title block's first line is the title and the rest (the version) its subtitle
      // paragraph; any other centred line is a section heading.
      const headingLines = !titled || !centred ? [first] : lines;
      for (const line of headingLines) out.push(`${titled ? "##" : "#"} ${line.trim()}`);
      if (headingLines.length < lines.length) out.push(paragraph(lines.slice(1)));
      titled = true;
      inItem = false;
      continue;
    }
    const numbered = /^ {0,3}(\d+)\. (.*)$/.exec(first);
    if (numbered && lines.length === 1 && first.trim().length < 90) {
      out.push(`### ${first.trim()}`);
      inItem = false;
      continue;
    }
    if (numbered) {
      out.push(`${numbered[1]}. ${paragraph([numbered[2]!, ...lines.slice(1)])}`);
      inItem = true;
      continue;
    }
    const lettered = /^ +([a-z])\) (.*)$/.exec(first);
    if (lettered) {
      out.push(`${inItem ? "    " : ""}${lettered[1]}) ${paragraph([lettered[2]!, ...lines.slice(1)])}`);
      continue;
    }
    out.push(`${inItem ? "    " : ""}${paragraph(lines)}`);
  }
  return `${out.join("\n\n")}\n`;
}

/** Sentences of apt's Arabic translation (real text by its translators), as paragraphs of a few each. */
function arabicMarkdown(): string {
  const po = run("msgunfmt", ["/usr/share/locale/ar/LC_MESSAGES/apt.mo"]).toString("utf8");
  const sentences: string[] = [];
  for (const match of po.matchAll(/msgstr "((?:[^"\\]|\\.)*)"/g)) {
    const text = match[1]!.replace(/\\n/g, " ").replace(/\\"/g, '"').replace(/%[a-z0-9$.*]+/gi, "").replace(/\s+/g, " ").trim();
    if (text.length >= 40 && /[\u0600-\u06ff]/.test(text) && !/[<>{}\\]/.test(text)) sentences.push(text.endsWith(".") ? text : `${text}.`);
  }
  const paragraphs: string[] = [];
  for (let index = 0; index < Math.min(sentences.length, 72); index += 4) paragraphs.push(sentences.slice(index, index + 4).join(" "));
  return `# رسائل مدير الحزم\n\n${paragraphs.join("\n\n")}\n`;
}

/** Two sheets of real code lists: ISO 3166-1 countries and ISO 639-2 languages. */
function codeLists(): { name: string; header: string[]; rows: string[][] }[] {
  const countries = JSON.parse(readFileSync("/usr/share/iso-codes/json/iso_3166-1.json", "utf8"))["3166-1"] as Record<string, string>[];
  const languages = JSON.parse(readFileSync("/usr/share/iso-codes/json/iso_639-2.json", "utf8"))["639-2"] as Record<string, string>[];
  return [
    { name: "Countries", header: ["Alpha-2", "Alpha-3", "Numeric", "Name"], rows: countries.map((c) => [c.alpha_2!, c.alpha_3!, c.numeric!, c.name!]) },
    { name: "Languages", header: ["Alpha-3", "Alpha-2", "Name"], rows: languages.map((l) => [l.alpha_3!, l.alpha_2 ?? "", l.name!]) },
  ];
}

/** A flat OpenDocument spreadsheet, which LibreOffice then saves as .ods and .xlsx. */
function flatOds(sheets: ReturnType<typeof codeLists>): string {
  const escape = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
  const cell = (value: string) => `<table:table-cell office:value-type="string"><text:p>${escape(value)}</text:p></table:table-cell>`;
  const tables = sheets.map(
    (sheet) =>
      `<table:table table:name="${escape(sheet.name)}">${[sheet.header, ...sheet.rows].map((row) => `<table:table-row>${row.map(cell).join("")}</table:table-row>`).join("")}</table:table>`,
  );
  return `<?xml version="1.0" encoding="UTF-8"?>
<office:document xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" office:version="1.2" office:mimetype="application/vnd.oasis.opendocument.spreadsheet"><office:body><office:spreadsheet>${tables.join("")}</office:spreadsheet></office:body></office:document>`;
}

function main(): void {
  const gpl3 = licenceToMarkdown(readFileSync("/usr/share/common-licenses/GPL-3", "utf8"));
  const gpl2 = licenceToMarkdown(readFileSync("/usr/share/common-licenses/GPL-2", "utf8"));
  writeFileSync(join(out, "gpl3.md"), gpl3);
  writeFileSync(join(out, "gpl2.md"), gpl2);
  for (const name of ["gpl3", "gpl2"]) {
    const source = join(out, `${name}.md`);
    const title = ["--metadata", `title=GNU General Public License (${name})`];
    run("pandoc", [source, "-s", ...title, "-o", join(out, `${name}.html`)]);
    run("pandoc", [source, "-o", join(out, `${name}.docx`)]);
    run("pandoc", [source, "-o", join(work, `${name}.odt`)]);
    run("pandoc", [source, ...title, "-o", join(out, `${name}.epub`)]);
    copyFileSync(join(work, `${name}.odt`), join(out, `${name}.odt`));
    // LibreOffice writes what a word processor's user gets: RTF with "Heading n" paragraph styles,
    // and a PDF with bookmarks (its default), whose headings are larger and bold.
    soffice(join(work, `${name}.odt`), "rtf", `${name}.rtf`);
    soffice(join(work, `${name}.odt`), "pdf", `${name}.pdf`);
  }
  // The same GPL 3 PDF without bookmarks: its headings can only come from the type.
  copyFileSync(join(work, "gpl3.odt"), join(work, "gpl3-plain.odt"));
  soffice(join(work, "gpl3-plain.odt"), 'pdf:writer_pdf_Export:{"ExportBookmarks":{"type":"boolean","value":"false"}}', "gpl3-no-outline.pdf");

  // find(1) through groff and ghostscript, as `man -Tpdf` does; the reference text is groff's own
  // rendering of the same page as plain text, with hyphenation off.
  const findPage = gunzipSync(readFileSync("/usr/share/man/man1/find.1.gz"));
  writeFileSync(join(out, "find.1"), findPage);
  const postscript = run("groff", ["-man", "-Tps"], { input: findPage });
  writeFileSync(join(work, "find.ps"), postscript);
  run("ps2pdf", [join(work, "find.ps"), join(out, "find.pdf")]);
  const findText = run("groff", ["-man", "-Tutf8", "-rcR=1", "-rHY=0", "-P-cbou"], { input: findPage });
  writeFileSync(join(out, "find.txt"), findText);

  writeFileSync(join(out, "arabic.md"), arabicMarkdown());
  const arabicHtml = run("pandoc", [join(out, "arabic.md"), "-s", "--metadata", "title=رسائل", "--metadata", "lang=ar", "--metadata", "dir=rtl"]).toString("utf8");
  writeFileSync(join(work, "arabic.html"), arabicHtml);
  soffice(join(work, "arabic.html"), "pdf:writer_web_pdf_Export", "arabic.pdf");

  const sheets = codeLists();
  writeFileSync(join(out, "codes.json"), `${JSON.stringify(sheets)}\n`);
  writeFileSync(join(work, "codes.fods"), flatOds(sheets));
  soffice(join(work, "codes.fods"), "ods", "codes.ods");
  soffice(join(work, "codes.fods"), "xlsx", "codes.xlsx");

  // A PDF with an empty page tree, as qpdf makes it.
  run("qpdf", ["--empty", join(out, "empty.pdf")]);

  // A pdfTeX manual as Debian builds it (texinfo: running headers, outline, hyphenation).
  const manual = "/usr/share/doc/libtasn1-doc/libtasn1.pdf";
  if (existsSync(manual)) copyFileSync(manual, join(out, "libtasn1.pdf"));
  else console.warn(`${manual} not found (apt-get install libtasn1-doc); the committed copy is kept`);

  rmSync(work, { recursive: true, force: true });
  console.log(`wrote ${out}`);
}

main();
