import type { APIGatewayAuthorizerResult, APIGatewayTokenAuthorizerEvent } from "aws-lambda";
import { bearerToken } from "../shared/domain/api-key-format.ts";
import { resolveApiKey } from "../shared/workflows/api-keys.ts";
import { logger } from "../shared/platform/logger.ts";

/**
 * TOKEN authorizer: `Authorization: Bearer <key>` → the key's organization. Throwing the exact
 * message "Unauthorized" is how a TOKEN authorizer makes API Gateway answer 401; the gateway
 * response then rewrites that into the error envelope.
 *
 * The policy allows every method of the stage, not just `methodArn`: API Gateway caches the policy
 * per token, and a policy naming one route would deny the key on every other route while cached.
 */
export async function handler(event: APIGatewayTokenAuthorizerEvent): Promise<APIGatewayAuthorizerResult> {
  const key = bearerToken(event.authorizationToken);
  if (!key) throw new Error("Unauthorized");
  const record = await resolveApiKey(key);
  if (!record) {
    logger.info("rejected an unknown API key");
    throw new Error("Unauthorized");
  }
  return {
    principalId: record.organizationId,
    usageIdentifierKey: record.usageKey,
    context: { organizationId: record.organizationId, keyId: record.keyId },
    policyDocument: {
      Version: "2012-10-17",
      Statement: [{ Action: "execute-api:Invoke", Effect: "Allow", Resource: stageWildcard(event.methodArn) }],
    },
  };
}

/**
 * `arn:aws:execute-api:region:account:apiId/stage/METHOD/path` → `arn:aws:execute-api:region:account:apiId/stage/*`.
 * The API id ends the colon-separated part, so the first "/" separates it from the stage; `*` in an
 * execute-api Resource matches across "/", so the pattern covers every method and path of the stage.
 */
export function stageWildcard(methodArn: string): string {
  const [apiArn, stage] = methodArn.split("/");
  return `${apiArn}/${stage}/*`;
}
