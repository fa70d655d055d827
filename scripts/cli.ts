import { fileURLToPath } from "node:url";

/**
 * Runs a command-line tool's `run(argv)` when its module is the script node was started with (and
 * not when a test imports it), exiting with its status; an error prints its message only.
 */
export function runWhenMain(moduleUrl: string, run: (argv: string[]) => Promise<number>): void {
  if (!process.argv[1] || fileURLToPath(moduleUrl) !== process.argv[1]) return;
  run(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (error: unknown) => {
      console.error(error instanceof Error ? error.message : error);
      process.exit(1);
    },
  );
}
