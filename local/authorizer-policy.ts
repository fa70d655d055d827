import type { PolicyDocument, Statement } from "aws-lambda";

const INVOKE_ACTION = "execute-api:Invoke";

/**
 * The decision API Gateway takes on a Lambda authorizer's policy for one request: an explicit Deny
 * whose Action and Resource match the method ARN wins, otherwise a matching Allow allows, otherwise
 * the request is denied (403). The policy is evaluated again for every request it is cached for, so
 * a policy that names only the first request's method denies the caller's other methods.
 */
export function evaluatePolicy(policy: PolicyDocument, methodArn: string): "allow" | "deny" {
  const matching = policy.Statement.filter((statement) => statementMatches(statement, methodArn));
  if (matching.some((statement) => statement.Effect === "Deny")) return "deny";
  return matching.some((statement) => statement.Effect === "Allow") ? "allow" : "deny";
}

/** `arn:aws:execute-api:{region}:{account}:{apiId}/{stage}/{METHOD}/{path without its leading slash}` */
export function executeApiArn(target: { region: string; account: string; apiId: string; stage: string }, method: string, path: string): string {
  return `arn:aws:execute-api:${target.region}:${target.account}:${target.apiId}/${target.stage}/${method}/${path.replace(/^\//, "")}`;
}

function statementMatches(statement: Statement, arn: string): boolean {
  const actionMatches =
    "Action" in statement
      ? list(statement.Action).some((pattern) => actionMatchesPattern(pattern))
      : !list(statement.NotAction).some((pattern) => actionMatchesPattern(pattern));
  if (!actionMatches) return false;
  if ("Resource" in statement && statement.Resource !== undefined) {
    return list(statement.Resource).some((pattern) => arnMatches(pattern, arn));
  }
  if ("NotResource" in statement && statement.NotResource !== undefined) {
    return !list(statement.NotResource).some((pattern) => arnMatches(pattern, arn));
  }
  return false;
}

function list(value: string | string[]): string[] {
  return Array.isArray(value) ? value : [value];
}

/** Action names compare case-insensitively in IAM. */
function actionMatchesPattern(pattern: string): boolean {
  return wildcard(pattern, "i").test(INVOKE_ACTION);
}

/**
 * IAM's ARN matching: `*` and `?` work inside each colon-separated part and never across a colon,
 * except in the resource part (everything after the fifth colon), where `*` spans "/" and ":" alike.
 * A bare `*` matches every ARN. Comparison is case-sensitive.
 */
export function arnMatches(pattern: string, arn: string): boolean {
  if (pattern === "*") return true;
  const patternParts = arnParts(pattern);
  const arnPartsOf = arnParts(arn);
  if (!patternParts || !arnPartsOf) return false;
  return patternParts.every((part, index) => wildcard(part).test(arnPartsOf[index] ?? ""));
}

function arnParts(value: string): string[] | null {
  const parts = value.split(":");
  if (parts.length < 6) return null;
  return [...parts.slice(0, 5), parts.slice(5).join(":")];
}

function wildcard(pattern: string, flags = ""): RegExp {
  const source = pattern
    .split("")
    .map((char) => (char === "*" ? ".*" : char === "?" ? "." : char.replace(/[.+^${}()|[\]\\]/g, "\\$&")))
    .join("");
  return new RegExp(`^${source}$`, `s${flags}`);
}
