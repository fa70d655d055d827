import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { isLoopback, listeningSockets } from "../support/listening-sockets.ts";

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

async function startDev(env: Record<string, string>) {
  const child = spawn(process.execPath, ["node_modules/tsx/dist/cli.mjs", "local/dev.ts"], {
    cwd: projectRoot,
    env: { ...process.env, PORT: "0", LOCAL_API_KEY: devKey, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  await expect.poll(() => output, { timeout: 60_000, interval: 200 }).toContain("Base URL:");
  const baseUrl = /Base URL:\s+(\S+)/.exec(output)?.[1] ?? "";
  const call = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${devKey}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as any };
  };
  const stop = async (signal: NodeJS.Signals = "SIGTERM") => {
    child.kill(signal);
    await expect.poll(() => child.exitCode, { timeout: 30_000 }).toBe(0);
  };
  return { child, output: () => output, baseUrl, call, stop };
}

describe("npm run dev", () => {
  it("serves the API with the given development key and stops everything it started on SIGINT", async () => {
    const dev = await startDev({ KIS_STACK_FILE: stackFile });
    const { child, baseUrl } = dev;
    expect(dev.output()).toContain(devKey);

    const listed = await fetch(`${baseUrl}/v1/namespace`, { headers: { authorization: `Bearer ${devKey}` } });
    expect(listed.status).toBe(200);
    expect(await listed.json()).toEqual({ success: true, data: [] });
    // The printed reference page and document answer without a key.
    expect(dev.output()).toContain(`API docs:  ${baseUrl}/docs   (OpenAPI: ${baseUrl}/openapi.json)`);
    expect((await fetch(`${baseUrl}/docs`)).status).toBe(200);
    expect(((await (await fetch(`${baseUrl}/openapi.json`)).json()) as { openapi: string }).openapi).toBe("3.1.0");
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
    await dev.stop("SIGINT");
    await expect.poll(() => started.filter(isAlive), { timeout: 10_000 }).toEqual([]);
  });
});

describe.runIf(process.platform === "linux")("npm run dev on the network", () => {
  it("listens on 127.0.0.1 only, in every process it starts (gateway, S3 front, emulator, DynamoDB Local)", async () => {
    const dev = await startDev({ KIS_STACK_FILE: `${stackFile}.loopback` });
    const stack = JSON.parse(readFileSync(`${stackFile}.loopback`, "utf8")) as { endpoints: Record<string, string> };
    const sockets = listeningSockets([dev.child.pid!, ...descendants(dev.child.pid!)]);
    const ports = sockets.map((socket) => socket.port);
    for (const endpoint of [dev.baseUrl, ...Object.values(stack.endpoints)]) expect(ports).toContain(Number(new URL(endpoint).port));
    expect(sockets.filter((socket) => !isLoopback(socket.address))).toEqual([]);
    await dev.stop();
  });
});

describe("npm run dev with PERSIST=1", () => {
  it("keeps namespaces, jobs, documents, files and vectors across a restart", async () => {
    const env = { PERSIST: "1", KIS_DATA_DIR: mkdtempSync(`${tmpdir()}/kis-data-`), KIS_STACK_FILE: `${stackFile}.persist` };
    const first = await startDev(env);
    const namespace = (await first.call("POST", "/v1/namespace", { name: "Kept", slug: "kept" })).body.data;
    const job = (await first.call("POST", `/v1/namespace/${namespace.id}/ingest-jobs`, { payload: { type: "TEXT", text: "Persistent penguins waddle on the ice." } })).body.data;
    await expect
      .poll(async () => (await first.call("GET", `/v1/namespace/${namespace.id}/ingest-jobs/${job.id}`)).body.data.status, { timeout: 30_000 })
      .toBe("COMPLETED");
    await first.stop();

    const second = await startDev(env);
    expect((await second.call("GET", "/v1/namespace")).body.data.map((item: { id: string }) => item.id)).toEqual([namespace.id]);
    expect((await second.call("GET", `/v1/namespace/${namespace.id}/ingest-jobs/${job.id}`)).body.data.status).toBe("COMPLETED");
    const documents = (await second.call("GET", `/v1/namespace/${namespace.id}/documents`)).body.data;
    const chunks = await second.call("POST", `/v1/namespace/${namespace.id}/documents/${documents[0].id}/chunks-download-url`);
    const chunksFile = (await (await fetch(chunks.body.data.url)).json()) as { chunks: { text: string }[] };
    expect(chunksFile.chunks[0]?.text).toContain("penguins");
    for (const mode of ["semantic", "keyword"]) {
      const results = (await second.call("POST", `/v1/namespace/${namespace.id}/search`, { query: "penguins on ice", mode })).body.data;
      expect(results[0]?.text, mode).toContain("penguins");
    }
    await second.stop();
  }, 180_000);
});
