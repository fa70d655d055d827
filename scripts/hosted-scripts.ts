/**
 * Writes the hosted pages' bundled browser scripts (lib/hosted-scripts.ts) to
 * functions/shared/http/hosted/scripts.generated.ts. `--check` only compares.
 *
 *   npm run hosted-scripts [-- --check]
 */
import { readFileSync, writeFileSync } from "node:fs";
import { HOSTED_SCRIPTS_FILE, renderHostedScriptsModule } from "../lib/hosted-scripts.ts";

const generated = await renderHostedScriptsModule();
if (process.argv.includes("--check")) {
  if (readFileSync(HOSTED_SCRIPTS_FILE, "utf8") !== generated) {
    console.error(`${HOSTED_SCRIPTS_FILE} is out of date; run npm run hosted-scripts`);
    process.exit(1);
  }
  console.log(`${HOSTED_SCRIPTS_FILE} is up to date`);
} else {
  writeFileSync(HOSTED_SCRIPTS_FILE, generated);
  console.log(`wrote ${HOSTED_SCRIPTS_FILE}`);
}
