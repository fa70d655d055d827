import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existsSync } from "node:fs";
import { buildExtractionAsset, type ExtractionAsset } from "../../bench/extraction-bundle.ts";
import { EXTRACTION_THREAD_BUNDLE_NAME } from "../../functions/shared/extraction/isolation.ts";
import { bundleSplit, EXTRACTION_THREAD_ENTRY } from "../../lib/bundling.ts";
import { EXTRACTION_EXTERNAL_MODULES } from "../../lib/extraction-asset.ts";
import { projectPath } from "../../lib/project.ts";
import { WORKERS } from "../../lib/workers.ts";
import { docxBomb } from "../fixtures/bombs.ts";
import { IMAGE_LINES, png, SCANNED_LINES, scannedPdf } from "../fixtures/documents.ts";

/**
 * The extraction layer as a Lambda asset ships it (BUNDLING.md): one esbuild bundle with the
 * project's options plus the OCR runtime copied beside it, run by a plain `node` in a fresh
 * process, from a directory with no other node_modules above it, and with no network at all (a
 * new network namespace when the machine allows one, else sockets refused by a preload).
 */

let dir: string;
let asset: ExtractionAsset;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "extraction-asset-"));
  asset = await buildExtractionAsset(join(dir, "asset"));
  writeFileSync(join(dir, "scan.pdf"), await scannedPdf());
  writeFileSync(join(dir, "text.png"), png());
  writeFileSync(join(dir, "bomb.docx"), await docxBomb(450));
}, 120_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

const canUnshare = spawnSync("unshare", ["-rn", "true"]).status === 0;

function runOffline(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const node = [process.execPath, asset.entry, ...args];
  const blockNetwork = join(dir, "no-network.cjs");
  writeFileSync(
    blockNetwork,
    `const net = require("node:net"); const refuse = () => { throw new Error("network access attempted"); };
     net.Socket.prototype.connect = refuse; globalThis.fetch = refuse;`,
  );
  const [command, ...rest] = canUnshare ? ["unshare", "-rn", ...node] : [process.execPath, "--require", blockNetwork, ...node.slice(1)];
  const result = spawnSync(command!, rest, { cwd: dir, encoding: "utf8", timeout: 60_000, env: { PATH: process.env.PATH ?? "" } });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe("extraction bundle (esbuild, project options, OCR runtime beside it, offline)", () => {
  it("bundles the parsers and copies only the OCR runtime", () => {
    expect(asset.bundleBytes).toBeGreaterThan(1_000_000);
    expect(asset.runtimeBytes).toBeLessThan(25_000_000);
  });

  it("extracts a PDF with a scanned page, OCR included", () => {
    const { status, stdout, stderr } = runOffline(["pdf", join(dir, "scan.pdf")]);
    expect(status, stderr).toBe(0);
    const result = JSON.parse(stdout);
    expect(result.totalPages).toBe(2);
    expect(result.text).toContain("northwind account");
    for (const line of SCANNED_LINES) expect(result.text).toContain(line);
  });

  it("reads documents in the extraction thread, whose entry is written beside index.mjs", () => {
    expect(EXTRACTION_THREAD_ENTRY.name).toBe(EXTRACTION_THREAD_BUNDLE_NAME);
    expect(existsSync(join(asset.dir, `${EXTRACTION_THREAD_BUNDLE_NAME}.mjs`))).toBe(true);
  });

  it("refuses a decompression bomb with the reason (issue 21)", () => {
    const { status, stdout, stderr } = runOffline(["docx", join(dir, "bomb.docx")]);
    expect(status, stdout).toBe(2);
    expect(stderr).toMatch(/^the Word file is too large when decompressed: its part word\/document.xml inflates to more than 6 MiB/);
  });

  it("the ingest worker's asset, bundled as AppFunction bundles it, carries the extraction thread's entry", () => {
    const worker = WORKERS.find((candidate) => candidate.extractsDocuments)!;
    const out = join(dir, "ingest-asset");
    bundleSplit(projectPath(worker.entry), out, EXTRACTION_EXTERNAL_MODULES);
    expect(existsSync(join(out, "index.mjs"))).toBe(true);
    expect(existsSync(join(out, `${EXTRACTION_THREAD_BUNDLE_NAME}.mjs`))).toBe(true);
  });

  it("reads a PNG through OCR", () => {
    const { status, stdout, stderr } = runOffline(["image", join(dir, "text.png")]);
    expect(status, stderr).toBe(0);
    expect(JSON.parse(stdout).text).toBe(IMAGE_LINES.join("\n"));
  });
});
