import { afterAll, beforeAll, inject } from "vitest";
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
  beforeAll(async () => {
    stack = await startLocalStack({
      dynamoEndpoint: inject("dynamoEndpoint"),
      emulatorEndpoint: inject("emulatorEndpoint"),
      rateLimit: { ratePerSecond: 10_000, burst: 10_000 },
      visibilityTimeoutSeconds: 2,
      ...options,
    });
  });
  afterAll(async () => {
    await stack?.stop();
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
