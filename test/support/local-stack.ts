import { afterAll, afterEach, beforeAll, inject } from "vitest";
import { ContractChecker } from "./contract.ts";
import { type GrantsByFunction, isGranted, type LocalNames, needsOf } from "./iam.ts";
import type { SdkCall } from "../../functions/shared/platform/sdk-observer.ts";
import { setSdkCallObserver } from "../../functions/shared/platform/sdk-observer.ts";
import { ENV } from "../../functions/shared/platform/env-names.ts";
import { currentLocalFunction } from "../../local/lambda-context.ts";
import { ensureOrganization, issueApiKey } from "../../functions/shared/db/organizations.ts";
import { type LocalStack, type LocalStackOptions, startLocalStack } from "../../local/stack.ts";

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

export interface TestApi {
  stack: () => LocalStack;
  /** A fresh organization with one API key. */
  newOrganization(name?: string): Promise<{ organizationId: string; key: string }>;
  request<T = any>(
    method: string,
    path: string,
    options?: { key?: string | null; body?: unknown; rawBody?: string; headers?: Record<string, string> },
  ): Promise<ApiResponse<T>>;
}

/**
 * Starts a local stack for the test file (its own table, bucket and queues in the shared
 * emulators) and gives an HTTP client for its gateway.
 */
export function useLocalStack(options: LocalStackOptions = {}): TestApi {
  let stack: LocalStack | undefined;
  // Every exchange through the gateway is checked against the committed OpenAPI document; what
  // disagrees fails the test that sent it.
  const contract = new ContractChecker();
  const breaches: string[] = [];
  // Every AWS call a function makes must be allowed by its synthesized IAM policy; a call it is
  // not allowed fails the file (the call would be AccessDenied in AWS).
  const calls: { functionName: string; call: SdkCall }[] = [];
  beforeAll(async () => {
    setSdkCallObserver((call) => {
      const functionName = currentLocalFunction();
      if (functionName) calls.push({ functionName, call });
    });
    stack = await startLocalStack({
      dynamoEndpoint: inject("dynamoEndpoint"),
      emulatorEndpoint: inject("emulatorEndpoint"),
      rateLimit: { ratePerSecond: 10_000, burst: 10_000 },
      // Tests send bursts no visitor would; the throttles themselves are tested in rate-limit.test.ts.
      publicMethodThrottles: {},
      visibilityTimeoutSeconds: 2,
      onExchange: (exchange) => breaches.push(...contract.check(exchange)),
      ...options,
      // Retries are asserted by what they answer, not by how long they wait: back-off steps of 1 ms.
      env: { [ENV.chatRetryBaseDelayMs]: "1", ...options.env },
    });
  });
  afterEach(() => {
    const found = breaches.splice(0);
    if (found.length > 0) throw new Error(`the API broke its OpenAPI contract (functions/http/docs/openapi.json):\n${found.join("\n")}`);
  });
  afterAll(async () => {
    setSdkCallObserver(null);
    await stack?.stop();
    const denied = stack ? deniedCalls(calls.splice(0), inject("iamGrants"), stack) : [];
    if (denied.length > 0) throw new Error(`calls the synthesized IAM policies do not allow (AccessDenied in AWS):\n${denied.join("\n")}`);
  });
  let counter = 0;
  return {
    stack: () => {
      if (!stack) throw new Error("the local stack is not running");
      return stack;
    },
    async newOrganization(name) {
      counter += 1;
      const { organization } = await ensureOrganization(name ?? `org-${process.pid}-${counter}-${Date.now()}`);
      const { key } = await issueApiKey(organization, "test");
      return { organizationId: organization.id, key };
    },
    async request(method, path, requestOptions = {}) {
      if (!stack) throw new Error("the local stack is not running");
      const headers: Record<string, string> = { ...requestOptions.headers };
      if (requestOptions.key) headers.authorization = `Bearer ${requestOptions.key}`;
      let body: string | undefined = requestOptions.rawBody;
      if (requestOptions.body !== undefined) {
        body = JSON.stringify(requestOptions.body);
        headers["content-type"] = "application/json";
      }
      const response = await fetch(stack.baseUrl + path, { method, headers, body });
      const text = await response.text();
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        // Not JSON: the test sees the raw text.
      }
      return { status: response.status, headers: response.headers, body: parsed as any };
    },
  };
}

/** One line per (function, action, resource) that the function's policy does not allow. */
function deniedCalls(calls: { functionName: string; call: SdkCall }[], grants: GrantsByFunction, stack: LocalStack): string[] {
  const names = {
    tableName: stack.resources.tableName,
    bucketName: stack.resources.bucketName,
    queueUrls: Object.fromEntries(Object.entries(stack.resources.queues).map(([name, queue]) => [name, queue.url])) as LocalNames["queueUrls"],
  };
  const denied = new Set<string>();
  for (const { functionName, call } of calls) {
    const functionGrants = grants[functionName];
    if (!functionGrants) {
      denied.add(`${functionName}: not a function of the synthesized stack`);
      continue;
    }
    for (const need of needsOf(call, names)) {
      if (!isGranted(functionGrants, need)) denied.add(`${functionName}: ${need.action} on ${need.resource}${need.leadingKey === undefined ? "" : ` item ${need.leadingKey.split("#")[0]}#…`} (${call.client} ${call.command})`);
    }
  }
  return [...denied];
}
