import { describe, expect, it } from "vitest";
import {
  describeSupportedTypes,
  fileExtension,
  fileTypeOf,
  largestUploadLimit,
  normalizeMimeType,
  resolveFileType,
  SUPPORTED_FILE_TYPES,
  uploadLimit,
} from "../../functions/shared/domain/catalogs/file-types.ts";
import { MAX_UPLOAD_BYTES_DEFAULT } from "../../functions/shared/platform/env.ts";

const formatOf = (fileName: string | undefined, contentType: string | undefined) =>
  resolveFileType({ fileName, contentType })?.format ?? null;

describe("resolveFileType", () => {
  it("recognises every format by its canonical MIME type", () => {
    expect(formatOf(undefined, "text/plain")).toBe("text");
    expect(formatOf(undefined, "text/markdown")).toBe("markdown");
    expect(formatOf(undefined, "text/html")).toBe("html");
    expect(formatOf(undefined, "application/json")).toBe("json");
    expect(formatOf(undefined, "application/jsonl")).toBe("jsonl");
    expect(formatOf(undefined, "text/csv")).toBe("csv");
    expect(formatOf(undefined, "text/tab-separated-values")).toBe("tsv");
  });

  it("accepts the MIME aliases tools actually send", () => {
    for (const mime of ["text/x-markdown", "application/markdown"]) expect(formatOf(undefined, mime)).toBe("markdown");
    for (const mime of ["application/x-ndjson", "application/jsonlines", "application/x-jsonlines"]) {
      expect(formatOf(undefined, mime)).toBe("jsonl");
    }
    expect(formatOf(undefined, "application/xhtml+xml")).toBe("html");
    expect(formatOf(undefined, "application/csv")).toBe("csv");
    expect(formatOf(undefined, "text/json")).toBe("json");
  });

  it("ignores MIME parameters, case and surrounding spaces", () => {
    expect(formatOf(undefined, "text/markdown; charset=utf-8")).toBe("markdown");
    expect(formatOf(undefined, " Text/HTML ;charset=ISO-8859-1")).toBe("html");
    expect(formatOf(undefined, "APPLICATION/JSON")).toBe("json");
  });

  it("falls back to the extension when the MIME type is missing, empty or application/octet-stream", () => {
    expect(formatOf("notes.md", undefined)).toBe("markdown");
    expect(formatOf("notes.md", "")).toBe("markdown");
    expect(formatOf("data.ndjson", "application/octet-stream")).toBe("jsonl");
    expect(formatOf("page.htm", "binary/octet-stream")).toBe("html");
    expect(formatOf("server.log", "application/octet-stream; charset=binary")).toBe("text");
  });

  it("matches extensions case-insensitively and ignores the folders in the name", () => {
    expect(formatOf("README.MD", undefined)).toBe("markdown");
    expect(formatOf("Export.CSV", undefined)).toBe("csv");
    expect(formatOf("reports/2024/Q3.Summary.Markdown", undefined)).toBe("markdown");
    expect(formatOf("C:\\Users\\me\\page.XHTML", undefined)).toBe("html");
  });

  it("lets the extension refine a MIME type that only names the broader family", () => {
    expect(formatOf("notes.md", "text/plain")).toBe("markdown");
    expect(formatOf("table.csv", "text/plain; charset=utf-8")).toBe("csv");
    expect(formatOf("events.jsonl", "application/json")).toBe("jsonl");
    expect(formatOf("table.tsv", "text/csv")).toBe("tsv");
    expect(formatOf("notes.cfg", "text/plain")).toBe("text");
  });

  it("believes the declared MIME type over an extension of another format", () => {
    expect(formatOf("notes.md", "text/html")).toBe("html");
    expect(formatOf("data.json", "text/csv")).toBe("csv");
    expect(formatOf("page.html", "text/markdown")).toBe("markdown");
  });

  it("uses the extension for unlisted text subtypes and refuses them without one", () => {
    expect(formatOf("server.log", "text/x-log")).toBe("text");
    expect(formatOf("README.md", "text/x-web-markdown")).toBe("markdown");
    expect(formatOf("script.py", "text/x-python")).toBeNull();
  });

  it("reads Excel's MIME type as CSV only for CSV and TSV file names", () => {
    expect(formatOf("export.csv", "application/vnd.ms-excel")).toBe("csv");
    expect(formatOf("export.tsv", "application/vnd.ms-excel")).toBe("tsv");
    expect(formatOf("workbook.xls", "application/vnd.ms-excel")).toBe("spreadsheet");
  });

  it("reads structured +json MIME types as JSON", () => {
    expect(formatOf(undefined, "application/ld+json")).toBe("json");
    expect(formatOf("feature.geojson", "application/geo+json")).toBe("json");
  });

  it("reads documents by MIME type, or by name when the type says nothing", () => {
    expect(formatOf("report.pdf", "application/pdf")).toBe("pdf");
    expect(formatOf("report.txt", "application/pdf")).toBe("pdf");
    expect(formatOf("letter.docx", "application/octet-stream")).toBe("docx");
    expect(formatOf("letter.docx", undefined)).toBe("docx");
    expect(formatOf("letter.docx", "application/vnd.openxmlformats-officedocument.wordprocessingml.document")).toBe("docx");
    expect(formatOf("deck.pptx", undefined)).toBe("pptx");
    expect(formatOf("sheet.ods", undefined)).toBe("spreadsheet");
    expect(formatOf("photo.png", "image/png")).toBe("image");
    expect(formatOf("scan.tiff", "image/tiff")).toBe("image");
    expect(formatOf("mail.eml", "message/rfc822")).toBe("email");
  });

  it("refuses formats it cannot read, whatever the file is called", () => {
    expect(formatOf("archive.zip", "application/zip")).toBeNull();
    expect(formatOf("report.pdf", "application/zip")).toBeNull();
    expect(formatOf("letter.doc", "application/msword")).toBeNull();
    expect(formatOf("animation.gif", "image/gif")).toBeNull();
    expect(formatOf("clip.mp4", "video/mp4")).toBeNull();
    expect(formatOf("README", undefined)).toBeNull();
    expect(formatOf(".env", undefined)).toBeNull();
    expect(formatOf(undefined, undefined)).toBeNull();
  });
});

describe("helpers", () => {
  it("normalises a MIME type to its lowercase essence", () => {
    expect(normalizeMimeType("Text/Markdown; charset=UTF-8")).toBe("text/markdown");
    expect(normalizeMimeType(undefined)).toBe("");
  });

  it("extracts a lowercase extension and none for dot files or bare names", () => {
    expect(fileExtension("a/b/Notes.TXT")).toBe(".txt");
    expect(fileExtension("archive.tar.gz")).toBe(".gz");
    expect(fileExtension(".gitignore")).toBe("");
    expect(fileExtension("Makefile")).toBe("");
    expect(fileExtension(null)).toBe("");
  });
});

describe("the supported-types table", () => {
  it("claims every MIME type and extension for exactly one format, spelled in lowercase", () => {
    const mimes = SUPPORTED_FILE_TYPES.flatMap((type) => [type.mimeType, ...type.mimeAliases]);
    const extensions = SUPPORTED_FILE_TYPES.flatMap((type) => type.extensions);
    expect(new Set(mimes).size).toBe(mimes.length);
    expect(new Set(extensions).size).toBe(extensions.length);
    for (const mime of mimes) expect(mime).toBe(normalizeMimeType(mime));
    for (const extension of extensions) expect(extension).toMatch(/^\.[a-z0-9]+$/);
  });

  it("resolves every listed MIME type and extension back to its own format", () => {
    for (const type of SUPPORTED_FILE_TYPES) {
      for (const mime of [type.mimeType, ...type.mimeAliases]) expect(resolveFileType({ contentType: mime })).toBe(type);
      for (const extension of type.extensions) expect(resolveFileType({ fileName: `file${extension}` })).toBe(type);
    }
  });

  it("describes every format and extension for error messages", () => {
    const description = describeSupportedTypes();
    for (const type of SUPPORTED_FILE_TYPES) {
      expect(description).toContain(type.label);
      for (const extension of type.extensions) expect(description).toContain(extension);
    }
    expect(description).toMatch(/^plain text \(\.txt, \.text, \.log\), Markdown \(\.md, \.markdown\)/);
  });

  it("allows 40 MiB uploads by default and 200 MiB PDFs, whose reader needs less memory per byte", () => {
    expect(MAX_UPLOAD_BYTES_DEFAULT).toBe(41_943_040);
    expect(uploadLimit(fileTypeOf("markdown"))).toBe(41_943_040);
    expect(uploadLimit(fileTypeOf("docx"))).toBe(41_943_040);
    expect(uploadLimit(fileTypeOf("pdf"))).toBe(209_715_200);
    expect(largestUploadLimit()).toBe(209_715_200);
  });

  it("lets MAX_UPLOAD_BYTES set one limit for every format", () => {
    process.env.MAX_UPLOAD_BYTES = "1000";
    try {
      expect(uploadLimit(fileTypeOf("pdf"))).toBe(1000);
      expect(uploadLimit(fileTypeOf("text"))).toBe(1000);
      expect(largestUploadLimit()).toBe(1000);
    } finally {
      delete process.env.MAX_UPLOAD_BYTES;
    }
  });
});
