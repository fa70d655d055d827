/**
 * `npm test`: the type-check (`npm run typecheck`) and the whole suite (`vitest run`) side by side.
 * One after the other they left a core idle for minutes: the type-check is one process, and the
 * integration files spend much of their time waiting on the emulators. Fails if either fails;
 * arguments go to vitest.
 *
 *   npm test [-- <vitest arguments>]
 */
import { spawn } from "node:child_process";

function run(label: string, command: string, args: string[]): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: "inherit" });
    child.on("error", (error) => {
      console.error(`npm test: ${label} could not start: ${error.message}`);
      resolve(1);
    });
    child.on("exit", (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

const [typecheck, tests] = await Promise.all([
  run("the type-check", "npm", ["run", "--silent", "typecheck"]),
  run("vitest", "npx", ["--no-install", "vitest", "run", ...process.argv.slice(2)]),
]);
if (typecheck !== 0) console.error("npm test: the type-check failed (npm run typecheck)");
process.exit(typecheck !== 0 ? typecheck : tests);
