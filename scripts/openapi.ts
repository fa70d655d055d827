/**
 * Writes the OpenAPI document (lib/openapi/build.ts) to functions/http/docs/openapi.json, which the
 * docs functions serve at GET /openapi.json and render at GET /docs. `--check` only compares.
 *
 *   npm run openapi [-- --check]
 */
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { buildOpenApiDocument, OPENAPI_FILE, serializeOpenApiDocument } from "../lib/openapi/build.ts";

const generated = serializeOpenApiDocument(await buildOpenApiDocument());
const path = fileURLToPath(OPENAPI_FILE);
if (process.argv.includes("--check")) {
  const committed = readFileSync(path, "utf8");
  if (committed !== generated) {
    console.error(`${path} is out of date; run npm run openapi`);
    process.exit(1);
  }
  console.log(`${path} is up to date`);
} else {
  writeFileSync(path, generated);
  console.log(`wrote ${path}`);
}
process.exit(0);
