import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const projectRoot = fileURLToPath(new URL("../../", import.meta.url));
const stackFile = `${mkdtempSync(`${tmpdir()}/kis-dev-`)}/local-stack.json`;
const devKey = "kis_devserverkey0123456789abcdefABCD";
const children: ChildProcess[] = [];

afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
});

function descendants(pid: number): number[] {
  const table = execFileSync("ps", ["-eo", "pid=,ppid="], { encoding: "utf8" })
    .trim()
    .split("\n")
    .map((line) => line.trim().split(/\s+/).map(Number) as [number, number]);
  const found: number[] = [];
  const queue = [pid];
  while (queue.length > 0) {
    const parent = queue.shift()!;
    for (const [child, ppid] of table) {
      if (ppid === parent) {
        found.push(child);
        queue.push(child);
      }
    }
  }
  return found;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe("npm run dev", () => {
  it("serves the API with the given development key and stops everything it started on SIGINT", async () => {
    const child = spawn(process.execPath, ["node_modules/tsx/dist/cli.mjs", "local/dev.ts"], {
      cwd: projectRoot,
      env: { ...process.env, PORT: "0", LOCAL_API_KEY: devKey, KIS_STACK_FILE: stackFile },
      stdio: ["ignore", "pipe", "pipe"],
    });
    children.push(child);
    let output = "";
    child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
    await expect.poll(() => output, { timeout: 60_000, interval: 200 }).toContain("Base URL:");
    const baseUrl = /Base URL:\s+(\S+)/.exec(output)?.[1] ?? "";
    expect(output).toContain(devKey);

    const listed = await fetch(`${baseUrl}/v1/namespace`, { headers: { authorization: `Bearer ${devKey}` } });
    expect(listed.status).toBe(200);
    expect(await listed.json()).toEqual({ success: true, data: [] });
    expect((await fetch(`${baseUrl}/health`)).status).toBe(200);

    const keysOutput = execFileSync(process.execPath, ["node_modules/tsx/dist/cli.mjs", "scripts/keys.ts", "create", "--org", "cli-org"], {
      cwd: projectRoot,
      env: { ...process.env, KIS_STACK_FILE: stackFile },
      encoding: "utf8",
    });
    const issued = /API key \(shown once, store it now\): (\S+)/.exec(keysOutput)?.[1];
    const withIssued = await fetch(`${baseUrl}/v1/namespace`, { headers: { authorization: `Bearer ${issued}` } });
    expect(withIssued.status).toBe(200);

    const started = descendants(child.pid!);
    expect(started.length).toBeGreaterThan(0);
    child.kill("SIGINT");
    await expect.poll(() => child.exitCode, { timeout: 20_000 }).toBe(0);
    await expect.poll(() => started.filter(isAlive), { timeout: 10_000 }).toEqual([]);
  });
});
