import { describe, expect, it } from "vitest";
import { violations } from "../support/architecture.ts";
import { type ImportGraph, type ModuleImports, readImportGraph } from "../support/import-graph.ts";

const root = new URL("../..", import.meta.url).pathname;

function graphOf(edges: Record<string, Partial<ModuleImports>>): ImportGraph {
  return new Map(Object.entries(edges).map(([file, imports]) => [file, { files: [], typeOnlyFiles: [], lazyFiles: [], packages: [], ...imports }]));
}

describe("the import graph of functions/", () => {
  it("keeps every rule: layers point down, SDK clients stay in their ports, no cycles, core does no I/O", () => {
    const graph = readImportGraph(root, ["functions"]);
    expect(graph.size).toBeGreaterThan(100);
    expect(violations(graph)).toEqual([]);
  });
});

describe("the checker", () => {
  it("finds a port that imports a workflow", () => {
    const found = violations(
      graphOf({
        "functions/shared/db/documents.ts": { files: ["functions/shared/workflows/ingestion/run-job.ts"] },
        "functions/shared/workflows/ingestion/run-job.ts": {},
      }),
    );
    expect(found).toEqual([expect.stringContaining("db (ports) may not depend on workflows (workflows)")]);
  });

  it("finds a handler, a worker or the edge reaching a port without a workflow, but for the port vocabulary the edge may speak", () => {
    const found = violations(
      graphOf({
        "functions/http/documents/get.ts": { files: ["functions/shared/db/documents.ts"] },
        "functions/shared/http/handler.ts": { files: ["functions/shared/db/namespaces.ts"] },
        "functions/http/documents/list.ts": { files: ["functions/shared/db/pager.ts"], typeOnlyFiles: ["functions/shared/db/pager.ts"] },
        "functions/http/documents/file-download-url.ts": { files: ["functions/shared/storage/presign.ts"] },
        "functions/workers/delete.ts": { files: ["functions/shared/queue/send.ts", "functions/shared/queue/messages.ts"] },
        "functions/shared/http/ui-message-stream.ts": { files: ["functions/shared/llm/types.ts", "functions/shared/vector-store/index.ts"] },
        "functions/shared/db/documents.ts": {},
        "functions/shared/db/namespaces.ts": {},
        "functions/shared/db/pager.ts": {},
        "functions/shared/storage/presign.ts": {},
        "functions/shared/queue/send.ts": {},
        "functions/shared/queue/messages.ts": { files: ["functions/shared/platform/zod.ts"] },
        "functions/shared/llm/types.ts": {},
        "functions/shared/vector-store/index.ts": {},
        "functions/shared/platform/zod.ts": {},
      }),
    );
    expect(found).toEqual([
      "functions/http/documents/get.ts imports functions/shared/db/documents.ts: entry:http (entry) reaches db/ only through workflows",
      "functions/shared/http/handler.ts imports functions/shared/db/namespaces.ts: http (edge) reaches db/ only through workflows",
      "functions/http/documents/file-download-url.ts imports functions/shared/storage/presign.ts: entry:http (entry) reaches storage/ only through workflows",
      "functions/workers/delete.ts imports functions/shared/queue/send.ts: entry:workers (entry) reaches queue/ only through workflows",
      "functions/shared/http/ui-message-stream.ts imports functions/shared/vector-store/index.ts: http (edge) reaches vector-store/ only through workflows",
    ]);
  });

  it("finds the DynamoDB plumbing imported past the repositories", () => {
    const found = violations(
      graphOf({
        "functions/shared/workflows/deletion/cascades.ts": { files: ["functions/shared/db/dynamo/query.ts", "functions/shared/db/documents.ts"] },
        "functions/shared/db/documents.ts": { files: ["functions/shared/db/dynamo/query.ts"] },
        "functions/shared/db/dynamo/query.ts": {},
      }),
    );
    expect(found).toEqual([
      "functions/shared/workflows/deletion/cascades.ts imports functions/shared/db/dynamo/query.ts: the DynamoDB plumbing is the repositories' (db/*.ts) alone",
    ]);
  });

  it("finds DynamoDB used outside db/ and functions importing lib/", () => {
    const found = violations(
      graphOf({
        "functions/shared/workflows/deletion.ts": { packages: ["@aws-sdk/lib-dynamodb"], files: ["lib/routes.ts"] },
      }),
    );
    expect(found).toContain("functions/shared/workflows/deletion.ts imports @aws-sdk/lib-dynamodb: only db/ may");
    expect(found).toContain("functions/shared/workflows/deletion.ts imports lib/routes.ts: functions/ never imports lib/");
  });

  it("finds file and folder cycles", () => {
    const found = violations(
      graphOf({
        "functions/shared/db/a.ts": { files: ["functions/shared/db/b.ts"] },
        "functions/shared/db/b.ts": { files: ["functions/shared/db/a.ts", "functions/shared/storage/c.ts"] },
        "functions/shared/storage/c.ts": { files: ["functions/shared/db/a.ts"] },
      }),
    );
    expect(found.some((line) => line.startsWith("file cycle:"))).toBe(true);
    expect(found).toContain("folder cycle: db ↔ storage");
  });

  it("finds a domain module, or a port module the edge may import, that reaches I/O through another module", () => {
    const found = violations(
      graphOf({
        "functions/shared/domain/rules.ts": { files: ["functions/shared/text/helper.ts"] },
        "functions/shared/text/helper.ts": { packages: ["node:fs/promises"] },
        "functions/shared/queue/messages.ts": { files: ["functions/shared/queue/client.ts"] },
        "functions/shared/queue/client.ts": { packages: ["@aws-sdk/client-sqs"] },
      }),
    );
    expect(found).toContain("functions/shared/domain/rules.ts reaches node:fs/promises (through functions/shared/text/helper.ts): core modules do no I/O");
    expect(found).toContain(
      "functions/shared/queue/messages.ts reaches @aws-sdk/client-sqs (through functions/shared/queue/client.ts): port modules the edge may import do no I/O",
    );
  });

  it("finds a domain module reading a port's registry, even for its types: the catalogs live in domain/catalogs/", () => {
    const found = violations(
      graphOf({
        "functions/shared/domain/namespace.ts": { files: ["functions/shared/embedding/registry.ts"], typeOnlyFiles: ["functions/shared/embedding/registry.ts"] },
        "functions/shared/embedding/registry.ts": { lazyFiles: ["functions/shared/embedding/providers/openai.ts"] },
      }),
    );
    expect(found).toContain(
      "functions/shared/domain/namespace.ts imports functions/shared/embedding/registry.ts: domain (core) may not depend on embedding (ports)",
    );
  });

  it("finds a route contract that loads runtime code, and a function that loads the wire schemas", () => {
    const found = violations(
      graphOf({
        "functions/http/search/search.route.ts": {
          files: ["functions/shared/domain/search.ts", "functions/shared/http/contract.ts", "functions/shared/workflows/search.ts"],
          typeOnlyFiles: ["functions/shared/http/contract.ts"],
        },
        "functions/shared/domain/wire/namespace.ts": { files: ["functions/shared/domain/wire/schemas.ts"] },
        "functions/shared/domain/wire/hosting.ts": { files: ["functions/shared/domain/wire/schemas.ts"], typeOnlyFiles: ["functions/shared/domain/wire/schemas.ts"] },
      }),
    );
    expect(found).toEqual([
      "functions/http/search/search.route.ts imports functions/shared/workflows/search.ts: a route contract loads only schemas (core, platform), and other modules for their types",
      "functions/shared/domain/wire/namespace.ts imports functions/shared/domain/wire/schemas.ts: functions use the wire schemas for their types only (import type)",
    ]);
  });

  it("finds files left at the root of functions/shared/ and folders without a layer", () => {
    const found = violations(graphOf({ "functions/shared/helpers.ts": {}, "functions/shared/misc/x.ts": {} }));
    expect(found).toContain("functions/shared/helpers.ts: files live in a folder under functions/shared/, not at its root");
    expect(found).toContain("functions/shared/misc/x.ts: folder misc has no layer in FOLDER_LAYER");
  });
});
