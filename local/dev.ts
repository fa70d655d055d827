import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { bearerToken } from "../functions/shared/domain/api-key-format.ts";
import { ensureOrganization, issueApiKey } from "../functions/shared/db/organizations.ts";
import { localStackFile } from "./stack-file.ts";
import { startLocalStack } from "./stack.ts";

/**
 * `npm run dev`: the whole service on this machine. PORT (default 3000) sets the gateway port,
 * LOCAL_API_KEY registers that exact development key, and PERSIST=1 (or --persist) keeps data in
 * .data/ (or KIS_DATA_DIR) across restarts.
 */
const projectRoot = fileURLToPath(new URL("../", import.meta.url));
const dataRoot = process.env.KIS_DATA_DIR ?? `${projectRoot}.data`;
const persist = process.argv.includes("--persist") || process.env.PERSIST === "1";

async function main(): Promise<void> {
  const localKey = process.env.LOCAL_API_KEY || undefined;
  // The authorizer accepts only keys of this shape; refusing here beats a key that never works.
  if (localKey !== undefined && bearerToken(`Bearer ${localKey}`) !== localKey) {
    throw new Error("LOCAL_API_KEY must be 16 to 256 letters, digits, '-' or '_' (for example kis_ followed by random characters)");
  }
  const port = Number(process.env.PORT ?? 3000);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`PORT must be a port number, not ${process.env.PORT}`);
  mkdirSync(dataRoot, { recursive: true });
  const stack = await startLocalStack({
    port,
    dataDir: persist ? `${dataRoot}/store` : undefined,
    prefix: persist ? "kis-local" : undefined,
  });
  const { organization } = await ensureOrganization("local");
  const { key } = await issueApiKey(organization, "development", localKey);
  const stackFile = localStackFile();
  mkdirSync(dirname(stackFile), { recursive: true });
  writeFileSync(
    stackFile,
    JSON.stringify({ baseUrl: stack.baseUrl, endpoints: stack.endpoints, resources: stack.resources }, null, 2),
  );

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`\n${signal}: stopping the local stack...`);
    await stack.stop();
    rmSync(stackFile, { force: true });
    process.exit(0);
  };
  process.on("SIGINT", () => void shutdown("SIGINT"));
  process.on("SIGTERM", () => void shutdown("SIGTERM"));

  console.log(
    [
      "",
      "knowledge-ingestion-service is running locally",
      `  Base URL:  ${stack.baseUrl}`,
      `  API key:   ${key}   (organization "local")`,
      `  API docs:  ${stack.baseUrl}/docs   (OpenAPI: ${stack.baseUrl}/openapi.json)`,
      `  Hosted:    ${stack.baseUrl}/hosted/<slug>   (a namespace's page once hosting is enabled and protected is false)`,
      "  Chat:      POST /v1/namespace/<id>/chat and the pages' chat tab answer with the model an llmConfig names",
      "             (offline there is no default: e.g. an OpenAI-compatible server on this machine, such as Ollama)",
      `  Data:      ${persist ? `${dataRoot}/store (persisted)` : "in memory (PERSIST=1 to keep it)"}`,
      "",
      `  curl -H "Authorization: Bearer ${key}" ${stack.baseUrl}/v1/namespace`,
      "",
      "Ctrl+C stops everything this command started.",
    ].join("\n"),
  );
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
