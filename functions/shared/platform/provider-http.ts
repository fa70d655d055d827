import { setTimeout as sleep } from "node:timers/promises";
import { logger } from "./logger.ts";

/**
 * One JSON POST to a third-party model provider reached with the namespace owner's key (embedding
 * and reranking providers alike): timeouts, retries with backoff that honour Retry-After, and error
 * messages safe to show the owner (the key, and anything shaped like a key, never appears in them).
 * The caller supplies how a failure becomes its own error type.
 */

export interface ProviderRetryOptions {
  /** Per HTTP request, not per call. */
  timeoutMs: number;
  /** Attempts per request, the first included. */
  maxAttempts: number;
  /** First backoff step; each retry doubles it. */
  retryBaseDelayMs: number;
  /** Upper bound on any single wait, Retry-After included. */
  maxRetryDelayMs: number;
}

export interface ProviderRequest {
  url: string;
  headers: Record<string, string>;
  body: unknown;
}

export interface ProviderCaller {
  /** What the request is for, in log messages: `embedding`, `rerank`. */
  purpose: string;
  provider: string;
  /** Shown in messages ("Voyage AI rejected the API key"). */
  label: string;
  apiKey: string;
  /** Builds the caller's error from a message safe to show. */
  fail(message: string, options: { status?: number; retryable?: boolean }): Error;
}

export function trimSlash(url: string): string {
  return url.replace(/\/+$/, "");
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

// Shapes of the providers' keys (OpenAI `sk-…`, Voyage `pa-…`, Google `AIza…`, Azure 32 hex), also
// when masked with `*`, so a key other than the configured one is not echoed either.
const KEY_SHAPED = /\b(?:sk-|pa-)[-_A-Za-z0-9*.]{8,}|\bAIza[-_A-Za-z0-9*]{8,}|\b[0-9a-fA-F]{32}\b/g;

/** Provider keys can appear in echoed error text; remove the exact key and anything key-shaped. */
export function scrub(text: string, apiKey: string): string {
  let safe = apiKey.length >= 4 ? text.split(apiKey).join("[redacted]") : text;
  safe = safe.replace(KEY_SHAPED, "[redacted]");
  safe = safe.replace(/\s+/g, " ").trim();
  return safe.length > 300 ? `${safe.slice(0, 297)}...` : safe;
}

async function errorDetail(response: Response, apiKey: string): Promise<string> {
  let raw: string;
  try {
    raw = await response.text();
  } catch {
    return "";
  }
  return providerErrorDetail(raw, apiKey);
}

/** A provider's own explanation in an error body (`error.message` and its variants), scrubbed of anything key-shaped. */
export function providerErrorDetail(raw: string, apiKey: string): string {
  let detail = raw;
  try {
    const parsed: unknown = JSON.parse(raw);
    if (isRecord(parsed)) {
      const error = parsed.error;
      if (isRecord(error) && typeof error.message === "string") detail = error.message;
      else if (typeof error === "string") detail = error;
      else if (typeof parsed.detail === "string") detail = parsed.detail;
      else if (typeof parsed.message === "string") detail = parsed.message;
    }
  } catch {
    // Not JSON (a proxy's HTML page, say): keep the text, scrubbed and shortened.
  }
  return scrub(detail, apiKey);
}

/** Milliseconds the server asked for: OpenAI's `retry-after-ms`, else `Retry-After` seconds or date. */
export function retryAfterMs(headers: Headers, now = Date.now()): number | undefined {
  const ms = Number(headers.get("retry-after-ms"));
  if (headers.get("retry-after-ms") !== null && Number.isFinite(ms) && ms >= 0) return ms;
  const value = headers.get("retry-after");
  if (value === null || value.trim() === "") return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Exponential backoff with jitter over the upper half, so retries neither stampede nor collapse to 0. */
export function backoffMs(attempt: number, baseMs: number, capMs: number): number {
  const ceiling = Math.min(capMs, baseMs * 2 ** (attempt - 1));
  return ceiling / 2 + Math.random() * (ceiling / 2);
}

/** Statuses another attempt may get past: timeouts, too early, rate limits, server errors. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 425 || status === 429 || status >= 500;
}

function isTimeout(error: unknown): boolean {
  const name = (error as { name?: string } | null)?.name;
  return name === "TimeoutError" || name === "AbortError";
}

/** POSTs `request` as JSON and returns the parsed JSON answer, retrying what is worth retrying. */
export async function postToProvider(caller: ProviderCaller, request: ProviderRequest, options: ProviderRetryOptions): Promise<unknown> {
  const { provider, label, apiKey, purpose } = caller;
  const { maxAttempts, timeoutMs, retryBaseDelayMs, maxRetryDelayMs } = options;
  const payload = JSON.stringify(request.body);
  for (let attempt = 1; ; attempt++) {
    const last = attempt >= maxAttempts;
    let response: Response;
    try {
      response = await fetch(request.url, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json", ...request.headers },
        body: payload,
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      // Network errors can carry the URL or socket details; the user sees only the kind of failure.
      const limit = timeoutMs >= 1000 ? `${Math.round(timeoutMs / 1000)} s` : `${timeoutMs} ms`;
      const reason = isTimeout(error) ? `did not answer within ${limit}` : "could not be reached";
      logger.warn(`${purpose} request failed`, { provider, attempt, reason, error: scrub(String(error), apiKey) });
      if (last) throw caller.fail(`${label} ${reason} (gave up after ${attempt} attempts)`, { retryable: true });
      await sleep(backoffMs(attempt, retryBaseDelayMs, maxRetryDelayMs));
      continue;
    }

    if (response.ok) {
      try {
        return await response.json();
      } catch {
        if (last) throw caller.fail(`${label} returned a response that is not JSON`, { retryable: true });
        await sleep(backoffMs(attempt, retryBaseDelayMs, maxRetryDelayMs));
        continue;
      }
    }

    const status = response.status;
    if (isRetryableStatus(status) && !last) {
      const asked = retryAfterMs(response.headers);
      await response.body?.cancel().catch(() => undefined);
      logger.warn(`${purpose} request will be retried`, { provider, attempt, status });
      await sleep(Math.min(maxRetryDelayMs, asked ?? backoffMs(attempt, retryBaseDelayMs, maxRetryDelayMs)));
      continue;
    }
    throw await failure(caller, response, attempt);
  }
}

async function failure(caller: ProviderCaller, response: Response, attempts: number): Promise<Error> {
  const { label, apiKey } = caller;
  const status = response.status;
  if (status === 401 || status === 403) {
    // Providers echo part of a rejected key in the message; say only what happened.
    await response.body?.cancel().catch(() => undefined);
    return caller.fail(`${label} rejected the API key (HTTP ${status})`, { status });
  }
  const detail = await errorDetail(response, apiKey);
  const suffix = detail ? `: ${detail}` : "";
  if (status === 429) {
    return caller.fail(`${label} rate limit exceeded (gave up after ${attempts} attempts)${suffix}`, { status, retryable: true });
  }
  if (isRetryableStatus(status)) {
    return caller.fail(`${label} failed with HTTP ${status} (gave up after ${attempts} attempts)${suffix}`, { status, retryable: true });
  }
  if (status === 404) return caller.fail(`${label} did not find the model or deployment (HTTP 404)${suffix}`, { status });
  return caller.fail(`${label} refused the request (HTTP ${status})${suffix}`, { status });
}
