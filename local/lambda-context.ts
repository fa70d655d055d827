import { randomUUID } from "node:crypto";
import { AsyncLocalStorage } from "node:async_hooks";
import { InvokeStoreBase } from "@aws/lambda-invoke-store";
import type { Context } from "aws-lambda";

/** A Lambda context for an in-process invocation, with the deadline Lambda would enforce. */
export function lambdaContext(functionName: string, timeoutSeconds: number): Context {
  const deadline = Date.now() + timeoutSeconds * 1000;
  const requestId = randomUUID();
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: "$LATEST",
    invokedFunctionArn: `arn:aws:lambda:us-east-1:000000000000:function:${functionName}`,
    memoryLimitInMB: "1024",
    awsRequestId: requestId,
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: `local/${requestId}`,
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

/**
 * The invocation context store Lambda's runtime exposes as `awslambda.InvokeStore` when invocations
 * may overlap in one execution environment: one context per invocation, kept by AsyncLocalStorage.
 */
class ConcurrentInvokeStore extends InvokeStoreBase {
  readonly #contexts = new AsyncLocalStorage<Record<string | symbol, unknown>>();

  getContext() {
    return this.#contexts.getStore();
  }

  hasContext() {
    return this.#contexts.getStore() !== undefined;
  }

  get<T = unknown>(key: string | symbol): T | undefined {
    return this.#contexts.getStore()?.[key] as T | undefined;
  }

  set<T = unknown>(key: string | symbol, value: T): void {
    const context = this.#contexts.getStore();
    if (!context) throw new Error("no invocation context");
    context[key] = value;
  }

  run<T>(context: Record<string | symbol, unknown>, fn: () => T): T {
    return this.#contexts.run(context, fn);
  }
}

let store: ConcurrentInvokeStore | undefined;

/**
 * Installs the concurrent store. Installed over whatever is there on purpose: the AWS SDK asks the
 * invoke-store package for a store on its first call, which (outside Lambda) registers one that
 * keeps a single context for the whole process.
 */
function concurrentInvokeStore(): ConcurrentInvokeStore {
  if (!store) {
    store = new ConcurrentInvokeStore();
    // Powertools scopes its state to the store only when Lambda says invocations may overlap.
    process.env.AWS_LAMBDA_MAX_CONCURRENCY ??= "64";
  }
  const runtime = ((globalThis as { awslambda?: { InvokeStore?: unknown } }).awslambda ??= {});
  runtime.InvokeStore = store;
  return store;
}

const FUNCTION_NAME = Symbol("local function name");

/**
 * Runs one invocation of `functionName` the way Lambda runs concurrent invocations that share an
 * execution environment: inside its own invocation context. Per-invocation state kept there (the
 * Powertools logger's Lambda context and keys) then stays with its invocation, so a worker's log
 * lines never carry the name of an HTTP function that happened to run in this process meanwhile.
 */
export function invokeLocally<T>(functionName: string, timeoutSeconds: number, run: (context: Context) => Promise<T>): Promise<T> {
  const context = lambdaContext(functionName, timeoutSeconds);
  return concurrentInvokeStore().run(
    { [InvokeStoreBase.PROTECTED_KEYS.REQUEST_ID]: context.awsRequestId, [FUNCTION_NAME]: functionName },
    () => run(context),
  );
}

/** The function whose invocation is running here, if any (the tests attribute SDK calls with it). */
export function currentLocalFunction(): string | undefined {
  return store?.get<string>(FUNCTION_NAME);
}
