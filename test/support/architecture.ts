import { cycles, type ImportGraph } from "./import-graph.ts";

/**
 * The dependency rules of `functions/`, as data and one checker. Layers, top to bottom: entry points
 * (one handler per Lambda) → edge (the HTTP stack, the SQS worker shape) → workflows → ports (one
 * folder per outside system or extension point) → core (domain vocabulary and pure text work) →
 * platform. A module imports its own folder, or a lower layer; ports may use other ports as long as
 * no folder cycle forms. README "Architecture" describes the same shape.
 */
export const LAYERS = {
  entry: 5,
  edge: 4,
  workflows: 3,
  ports: 2,
  core: 1,
  platform: 0,
} as const;

type Layer = keyof typeof LAYERS;

/** Folder (first segment under functions/shared/, or the entry-point folder) → layer. */
export const FOLDER_LAYER: Record<string, Layer> = {
  "entry:http": "entry",
  "entry:workers": "entry",
  "entry:authorizer": "entry",
  http: "edge",
  worker: "edge",
  workflows: "workflows",
  db: "ports",
  storage: "ports",
  queue: "ports",
  "vector-store": "ports",
  embedding: "ports",
  extraction: "ports",
  fetch: "ports",
  reranking: "ports",
  llm: "ports",
  email: "ports",
  domain: "core",
  text: "core",
  platform: "platform",
};

/** Which folder alone may import each AWS SDK client (or the package that wraps it). */
export const SDK_OWNERS: Record<string, string[]> = {
  "@aws-sdk/client-dynamodb": ["db"],
  "@aws-sdk/lib-dynamodb": ["db"],
  "@aws-sdk/client-s3": ["storage"],
  "@aws-sdk/s3-request-presigner": ["storage"],
  "@aws-sdk/client-sqs": ["queue"],
  "@aws-sdk/client-s3vectors": ["vector-store"],
  "@aws-sdk/client-bedrock-runtime": ["embedding", "reranking", "llm"],
  "@aws-sdk/client-bedrock-agent-runtime": ["reranking"],
  "@aws-sdk/client-sesv2": ["email"],
};

/**
 * Ports the entry points and the edge reach only through a workflow: all of them. A handler parses,
 * calls a workflow and responds; a worker hands its message to one; storage, queues, the table and
 * the providers are the workflows' to call.
 */
export const WORKFLOWS_ONLY: string[] = Object.keys(FOLDER_LAYER).filter((folder) => FOLDER_LAYER[folder] === "ports");

/**
 * The port modules the entry points and the edge may still import, each with its reason: both are
 * the vocabulary of a conversation the edge holds itself, and load only core and platform modules
 * (checked), so no client comes with them. (The platform layer, logging above all, is below every
 * layer and open to all.)
 */
export const EDGE_MAY_IMPORT: Record<string, string> = {
  // A worker parses its own queue's messages; sending them stays in the workflows.
  "functions/shared/queue/messages.ts": "the work messages' schemas",
  // The chat stream the edge writes reports the model's ChatError as the stream's error part.
  "functions/shared/llm/types.ts": "the chat model's error",
};

/** The DynamoDB plumbing (client, keys, transactions, paging) beneath the repositories: only `db/` itself imports it. */
export const DYNAMO_PLUMBING = "functions/shared/db/dynamo/";

/**
 * Route contracts (functions/http/<feature>/<name>.route.ts) are data the route table, the OpenAPI
 * build and the local gateway read: they load core and platform modules only (schemas), and the
 * rest of functions/ for its types alone.
 */
export const ROUTE_CONTRACT = /^functions\/http\/[^/]+\/[^/]+\.route\.ts$/;

/**
 * The response schemas: the OpenAPI build's to load. Functions name them for their types only, so
 * no bundle carries them; the mappers beside them (domain/wire/*.ts) are typed by them this way.
 */
export const WIRE_SCHEMAS = "functions/shared/domain/wire/schemas.ts";

/** Node modules that reach outside the process; core modules never load them, even indirectly. */
const IO_MODULES = ["node:fs", "node:fs/promises", "node:http", "node:https", "node:net", "node:dns", "node:dns/promises", "node:child_process"];

const OUTSIDE_FUNCTIONS = ["lib/", "local/", "scripts/", "bench/", "test/"];

export function folderOf(file: string): string | null {
  const parts = file.split("/");
  if (parts[0] !== "functions") return null;
  if (parts[1] === "shared") return parts.length > 3 ? parts[2]! : `shared-root`;
  return `entry:${parts[1]}`;
}

/** Every broken rule, as one readable line each; empty when the graph is clean. */
export function violations(graph: ImportGraph): string[] {
  const found: string[] = [];
  const functionFiles = [...graph.keys()].filter((file) => file.startsWith("functions/"));

  for (const file of functionFiles) {
    const imports = graph.get(file)!;
    const from = folderOf(file)!;
    if (from === "shared-root") found.push(`${file}: files live in a folder under functions/shared/, not at its root`);
    const fromLayer = FOLDER_LAYER[from];
    if (!fromLayer && from !== "shared-root") found.push(`${file}: folder ${from} has no layer in FOLDER_LAYER`);
    for (const target of [...imports.files, ...imports.lazyFiles]) {
      if (OUTSIDE_FUNCTIONS.some((prefix) => target.startsWith(prefix))) found.push(`${file} imports ${target}: functions/ never imports ${target.split("/")[0]}/`);
    }
    for (const target of imports.files) {
      const loads = !imports.typeOnlyFiles.includes(target);
      if (target === WIRE_SCHEMAS && loads) found.push(`${file} imports ${target}: functions use the wire schemas for their types only (import type)`);
      if (ROUTE_CONTRACT.test(file) && loads && !["core", "platform"].includes(FOLDER_LAYER[folderOf(target) ?? ""] ?? "")) {
        found.push(`${file} imports ${target}: a route contract loads only schemas (core, platform), and other modules for their types`);
      }
      if (target.startsWith(DYNAMO_PLUMBING) && !file.startsWith("functions/shared/db/")) {
        found.push(`${file} imports ${target}: the DynamoDB plumbing is the repositories' (db/*.ts) alone`);
      }
      const to = folderOf(target);
      if (!to || to === from || !fromLayer) continue;
      const toLayer = FOLDER_LAYER[to];
      if (!toLayer) continue;
      const sameLayerAllowed = fromLayer === toLayer && (fromLayer === "ports" || fromLayer === "core");
      if (LAYERS[toLayer] > LAYERS[fromLayer] || (LAYERS[toLayer] === LAYERS[fromLayer] && !sameLayerAllowed)) {
        found.push(`${file} imports ${target}: ${from} (${fromLayer}) may not depend on ${to} (${toLayer})`);
      }
      if ((fromLayer === "entry" || fromLayer === "edge") && WORKFLOWS_ONLY.includes(to) && !imports.typeOnlyFiles.includes(target) && !(target in EDGE_MAY_IMPORT)) {
        found.push(`${file} imports ${target}: ${from} (${fromLayer}) reaches ${to}/ only through workflows`);
      }
    }
    for (const specifier of imports.packages) {
      const owners = SDK_OWNERS[specifier];
      if (owners && !owners.includes(from)) found.push(`${file} imports ${specifier}: only ${owners.join(", ")}/ may`);
    }
  }

  const fileEdges = new Map(functionFiles.map((file) => [file, graph.get(file)!.files.filter((target) => graph.has(target))]));
  for (const cycle of cycles(fileEdges)) found.push(`file cycle: ${cycle.join(" → ")}`);

  const folderEdges = new Map<string, Set<string>>();
  for (const [file, targets] of fileEdges) {
    const from = folderOf(file)!;
    for (const target of targets) {
      const to = folderOf(target)!;
      if (to !== from) folderEdges.set(from, (folderEdges.get(from) ?? new Set()).add(to));
    }
  }
  for (const cycle of cycles(folderEdges)) found.push(`folder cycle: ${cycle.join(" ↔ ")}`);

  // Core modules, and the port modules the edge may import, load only core and platform and do no I/O.
  const pure = [
    ...functionFiles.filter((file) => FOLDER_LAYER[folderOf(file)!] === "core").map((file) => [file, "core modules"] as const),
    ...Object.keys(EDGE_MAY_IMPORT).filter((file) => graph.has(file)).map((file) => [file, "port modules the edge may import"] as const),
  ];
  for (const [file, what] of pure) {
    for (const module of reachable(graph, file)) {
      const layer = FOLDER_LAYER[folderOf(module) ?? ""];
      if (module !== file && layer !== "core" && layer !== "platform") {
        found.push(`${file} reaches ${module}: ${what} do no I/O and load only core and platform (provider and format catalogs live in domain/catalogs/)`);
      }
      for (const specifier of graph.get(module)?.packages ?? []) {
        if (IO_MODULES.includes(specifier) || specifier.startsWith("@aws-sdk/")) found.push(`${file} reaches ${specifier} (through ${module}): ${what} do no I/O`);
      }
    }
  }
  return [...new Set(found)];
}

/** Modules a file loads through static imports (type-only imports load nothing), itself included. */
function reachable(graph: ImportGraph, start: string): Set<string> {
  const seen = new Set<string>([start]);
  const pending = [start];
  for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
    const imports = graph.get(file);
    for (const target of (imports?.files ?? []).filter((target) => !imports!.typeOnlyFiles.includes(target))) {
      if (!seen.has(target) && graph.has(target)) {
        seen.add(target);
        pending.push(target);
      }
    }
  }
  return seen;
}
