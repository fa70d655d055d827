import { fileURLToPath } from "node:url";

declare global {
  // `deno check` applies this project's tsconfig, whose `lib` leaves out Deno's own ImportMeta, and
  // Deno's Node types do not declare it either; tsc gets the identical declaration from @types/node.
  interface ImportMeta {
    url: string;
  }
}

const PROJECT_ROOT_URL = new URL("../", import.meta.url);

/** Absolute path of a file given from the project root, as entries are in the route and worker tables. */
export function projectPath(relative: string): string {
  return fileURLToPath(new URL(relative, PROJECT_ROOT_URL));
}
