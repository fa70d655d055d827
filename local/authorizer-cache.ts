import type { APIGatewayAuthorizerResult } from "aws-lambda";

/**
 * API Gateway's authorizer result cache: the result of the first request with a given token
 * (the whole Authorization header, the TOKEN authorizer's identity source) is reused for every
 * request with that token until the TTL passes, whatever its method and path. A TTL of 0 turns
 * caching off, as it does in API Gateway. Failures ("Unauthorized", crashes) are not cached.
 */
export class AuthorizerCache {
  private readonly entries = new Map<string, { result: APIGatewayAuthorizerResult; expiresAt: number }>();

  constructor(private readonly ttlSeconds: number) {}

  async resolve(
    token: string,
    authorize: () => Promise<APIGatewayAuthorizerResult>,
    now: () => number = Date.now,
  ): Promise<APIGatewayAuthorizerResult> {
    const cached = this.entries.get(token);
    if (cached && cached.expiresAt > now()) return cached.result;
    this.entries.delete(token);
    const result = await authorize();
    if (this.ttlSeconds > 0) {
      this.entries.set(token, { result, expiresAt: now() + this.ttlSeconds * 1000 });
      this.evictExpired(now());
    }
    return result;
  }

  /** Keeps the map from growing with one-off tokens (a client cycling through random keys). */
  private evictExpired(at: number): void {
    if (this.entries.size < 1000) return;
    for (const [token, entry] of this.entries) if (entry.expiresAt <= at) this.entries.delete(token);
  }
}
