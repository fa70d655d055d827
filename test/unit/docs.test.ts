import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { DOCUMENT_FORMATS } from "../../functions/shared/domain/catalogs/document-formats.ts";
import { ROUTES } from "../../lib/routes.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const DOCS = ["README.md", "bench/README.md", ...fs.readdirSync(path.join(ROOT, "docs")).filter((name) => name.endsWith(".md")).map((name) => `docs/${name}`)];
const read = (file: string) => fs.readFileSync(path.join(ROOT, file), "utf8");

/** Prose only: fenced code shows commands and output, whose paths are examples, not citations. */
function prose(text: string): string {
  return text.replace(/^```[\s\S]*?^```/gm, "");
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens. */
function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  for (const [, heading] of prose(text).matchAll(/^#{1,6} (.+)$/gm)) {
    anchors.add(heading!.toLowerCase().replace(/[^\p{L}\p{N}\- _]/gu, "").replace(/ /g, "-"));
  }
  return anchors;
}

/** Paths cited in backticks that name a file or folder of this repository. */
const CITED_PATH = /`((?:\.ci|bin|bench|docs|functions|lib|local|scripts|test)\/[^`\s]*)`/g;
/** Paths cited relative to `functions/shared/` (`db/keys.ts`, `shared/http/`), as the layer tables write them. */
const SHARED_FOLDERS = fs.readdirSync(path.join(ROOT, "functions/shared"));
const CITED_SHARED_PATH = new RegExp(`\`((?:shared/)?(?:${SHARED_FOLDERS.join("|")})/[^\`\\s]*)\``, "g");

describe("the README and docs", () => {
  it("keep the README to one page", () => {
    expect(read("README.md").split("\n").length).toBeLessThanOrEqual(350);
  });

  it.each(DOCS)("%s links only to files and headings that exist", (file) => {
    const broken: string[] = [];
    for (const [, target] of prose(read(file)).matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/.test(target!)) continue;
      const [relative, anchor] = target!.split("#") as [string, string | undefined];
      const resolved = relative ? path.posix.join(path.posix.dirname(file), relative) : file;
      if (!fs.existsSync(path.join(ROOT, resolved))) broken.push(target!);
      else if (anchor && resolved.endsWith(".md") && !anchorsOf(read(resolved)).has(anchor)) broken.push(target!);
    }
    expect(broken).toEqual([]);
  });

  it.each(DOCS)("%s cites only paths that exist", (file) => {
    const missing: string[] = [];
    const text = prose(read(file));
    const cited = [
      ...[...text.matchAll(CITED_PATH)].map(([, match]) => match!),
      // Only a file name or a folder's trailing slash: `text/plain` is a MIME type, not the text/ folder.
      ...[...text.matchAll(CITED_SHARED_PATH)]
        .map(([, match]) => match!)
        .filter((match) => match.endsWith("/") || /\.[a-z]+$/.test(match))
        .map((match) => `functions/shared/${match.replace(/^shared\//, "")}`),
    ];
    for (const citation of cited) {
      // Placeholders (`functions/http/<area>/<name>.ts`) and patterns name no single file.
      if (/[<>*{}]/.test(citation)) continue;
      const candidate = citation.replace(/[.,:;)]+$/, "").replace(/\/$/, "");
      if (!fs.existsSync(path.join(ROOT, candidate))) missing.push(citation);
    }
    expect(missing).toEqual([]);
  });

  it("list exactly the registry's ingested extensions in the formats table", () => {
    const tableExtensions = new Set<string>();
    for (const line of read("docs/formats.md").split("\n")) {
      const cells = line.split("|");
      if (cells.length < 4) continue;
      for (const [, extension] of cells[2]!.matchAll(/`(\.[a-z0-9]+)`/g)) tableExtensions.add(extension!);
    }
    const registry = new Set(Object.values(DOCUMENT_FORMATS).filter((format) => format.ingested).flatMap((format) => format.extensions));
    expect([...tableExtensions].sort()).toEqual([...registry].sort());
  });

  it("name every operation of the API, with its method and path, in the endpoint table", () => {
    const documented = new Set<string>();
    for (const line of read("docs/api.md").split("\n")) {
      const cells = line.split("|").map((cell) => cell.trim());
      if (cells.length < 6 || !cells[3]!.startsWith("`/")) continue;
      const ids = [...cells[1]!.matchAll(/`(\w+)`/g)].map(([, id]) => id!);
      const methods = cells[2]!.split(/,\s*/);
      ids.forEach((id, position) => documented.add(`${id} ${methods[Math.min(position, methods.length - 1)]} ${cells[3]!.replace(/`/g, "")}`));
    }
    const operations = ROUTES.map((route) => `${route.contract.operationId} ${route.method} ${route.path}`);
    expect([...documented].sort()).toEqual(operations.sort());
  });
});
