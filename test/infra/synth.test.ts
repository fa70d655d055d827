import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { ESM_REQUIRE_BANNER } from "../../lib/bundling.ts";
import { HTTP_FUNCTIONS } from "../../lib/routes.ts";
import { SCHEDULED_FUNCTIONS, WORKERS } from "../../lib/workers.ts";

const PROJECT_ROOT = fileURLToPath(new URL("../../", import.meta.url));

// Outside the project on purpose: the Deno app may write only to the output folder the CLI names
// (cdk.json passes CDK_OUTDIR to --allow-write), and `cdk synth -o <anywhere>` must work.
const outdir = fs.mkdtempSync(path.join(os.tmpdir(), "kis-synth-test-"));

afterAll(() => fs.rmSync(outdir, { recursive: true, force: true }));

function cdkSynth(): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(
      "npx",
      ["--no-install", "cdk", "synth", "-q", "-o", outdir],
      {
        cwd: PROJECT_ROOT,
        timeout: 120_000,
        maxBuffer: 64 * 1024 * 1024,
        env: {
          ...process.env,
          // The real `cdk synth` keeps CDK's CloudFormation validation, which the in-process tests skip.
          CDK_VALIDATION: "true",
          CDK_DISABLE_CLI_TELEMETRY: "true",
          AWS_EC2_METADATA_DISABLED: "true",
          CDK_DEFAULT_ACCOUNT: "111111111111",
          CDK_DEFAULT_REGION: "us-east-1",
        },
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
        resolve({ code, output: `${stdout}\n${stderr}` });
      },
    );
  });
}

type Template = { Resources: Record<string, { Type: string; Metadata?: Record<string, string> }> };

const extractingWorkers = WORKERS.filter((worker) => worker.extractsDocuments).map((worker) => worker.id);

describe("cdk synth through the CLI (Deno app, esbuild bundling, cdk-nag)", () => {
  it("exits 0 and writes a template with the API and a bundled ESM handler per function", { timeout: 150_000 }, async () => {
    const { code, output } = await cdkSynth();
    expect(code, output.slice(-4000)).toBe(0);

    const template = JSON.parse(
      fs.readFileSync(path.join(outdir, "KnowledgeIngestionService-dev.template.json"), "utf8"),
    ) as Template;
    const types = Object.values(template.Resources).map((resource) => resource.Type);
    expect(types).toContain("AWS::ApiGateway::RestApi");

    const functions = Object.values(template.Resources).filter((resource) => resource.Type === "AWS::Lambda::Function");
    expect(functions.length).toBe(HTTP_FUNCTIONS.length + 1 + WORKERS.length + SCHEDULED_FUNCTIONS.length);
    for (const fn of functions) {
      const assetPath = fn.Metadata?.["aws:asset:path"];
      expect(assetPath).toBeDefined();
      const bundle = fs.readFileSync(path.join(outdir, assetPath!, "index.mjs"), "utf8");
      expect(bundle.startsWith(ESM_REQUIRE_BANNER)).toBe(true);
      expect(fs.existsSync(path.join(outdir, assetPath!, "index.mjs.map"))).toBe(true);
    }

    // The ingest worker ships split: its formats as chunks loaded on first use, and the OCR runtime
    // (tesseract.js, its WebAssembly core, the English model) beside the bundle, nothing fetched later.
    expect(extractingWorkers).toEqual(["IngestWorker"]);
    const [ingestWorker] = Object.entries(template.Resources).filter(([id, resource]) => resource.Type === "AWS::Lambda::Function" && id.includes("IngestWorker"));
    const asset = path.join(outdir, ingestWorker![1].Metadata!["aws:asset:path"]!);
    const chunks = fs.readdirSync(path.join(asset, "chunks"));
    for (const format of ["pdf", "docx", "pptx", "spreadsheet", "image"]) expect(chunks.some((name) => name.startsWith(`${format}-`)), format).toBe(true);
    // Every document is read in an extraction thread (issue 21), whose entry ships beside index.mjs.
    expect(fs.existsSync(path.join(asset, "extraction-thread.mjs"))).toBe(true);
    expect(fs.readFileSync(path.join(asset, "index.mjs"), "utf8")).toContain("extraction-thread");
    expect(fs.existsSync(path.join(asset, "node_modules/tesseract.js/package.json"))).toBe(true);
    expect(fs.existsSync(path.join(asset, "node_modules/tesseract.js-core/tesseract-core-simd.wasm"))).toBe(true);
    expect(fs.readdirSync(path.join(asset, "node_modules/@tesseract.js-data/eng/4.0.0_best_int"))).toContain("eng.traineddata.gz");
  });
});
