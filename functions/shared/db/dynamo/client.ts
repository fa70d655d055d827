import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { observed } from "../../platform/sdk-observer.ts";

/**
 * The DynamoDB document client, created once per process on first use. Endpoints come from the standard
 * AWS_ENDPOINT_URL_* variables, which is how the local stack redirects them to the emulators.
 */
let documentClient: DynamoDBDocumentClient | undefined;

export function dynamo(): DynamoDBDocumentClient {
  documentClient ??= DynamoDBDocumentClient.from(observed(new DynamoDBClient({})), {
    marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
  });
  return documentClient;
}
