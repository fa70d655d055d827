import { fileURLToPath } from "node:url";

/**
 * Where `npm run dev` records its endpoints and resource names, so `npm run keys` can find the
 * running stack. KIS_STACK_FILE overrides it (tests run their own stacks side by side).
 */
export function localStackFile(): string {
  return process.env.KIS_STACK_FILE ?? fileURLToPath(new URL("../.data/local-stack.json", import.meta.url));
}
