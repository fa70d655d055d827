/**
 * Masks a credential for display: enough to recognise which key is configured (`sk-...abcd`),
 * never enough to use it. Short values are masked completely.
 */
export function maskSecret(secret: string): string {
  if (secret.length < 12) return "****";
  return `${secret.slice(0, 3)}...${secret.slice(-4)}`;
}

/** Provider settings as callers see them: the `apiKey`, when there is one, masked. */
export function withMaskedKey<T extends { apiKey?: unknown }>(settings: T): T {
  return typeof settings.apiKey === "string" ? { ...settings, apiKey: maskSecret(settings.apiKey) } : { ...settings };
}
