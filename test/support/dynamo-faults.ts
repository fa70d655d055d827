import { DynamoDBDocumentClient, QueryCommand } from "@aws-sdk/lib-dynamodb";
import { dynamo } from "../../functions/shared/db/dynamo/client.ts";
import { LIST_SORT_KEY } from "../../functions/shared/db/dynamo/table-schema.ts";
import type { LocalStack } from "../../local/stack.ts";

/*
 * DynamoDB behaviour that DynamoDB Local never shows (transaction conflicts, eventually consistent
 * indexes), injected as SDK middleware into the client the service's code uses. The service's own
 * functions run unchanged; only what DynamoDB answers differs.
 */

type MarshalledInput = Record<string, any>;

export interface InjectedError {
  /** DynamoDB's error code, e.g. TransactionCanceledException or TransactionConflictException. */
  type: string;
  message: string;
  CancellationReasons?: { Code: string; Message?: string }[];
}

export interface Injection {
  /** Calls the answer function was asked about. */
  seen(): number;
  /** Calls answered with an injected error. */
  injected(): number;
  remove(): void;
}

const installed = new Set<() => void>();
let counter = 0;

/** Removes every injection still installed (for an afterEach). */
export function removeInjections(): void {
  for (const remove of [...installed]) remove();
}

/** A TransactionCanceledException as DynamoDB sends it: one reason per action, `None` where it passed. */
export function cancellation(...codes: string[]): InjectedError {
  return {
    type: "TransactionCanceledException",
    message: `Transaction cancelled, please refer cancellation reasons for specific reasons [${codes.join(", ")}]`,
    CancellationReasons: codes.map((Code) => (Code === "None" ? { Code } : { Code, Message: `injected ${Code}` })),
  };
}

/** What a single-item write gets when it meets an ongoing transaction on its item. */
export const transactionConflict: InjectedError = {
  type: "TransactionConflictException",
  message: "Transaction is ongoing for the item",
};

/**
 * Answers the service's DynamoDB calls that `answer` picks with an error response, in DynamoDB's
 * wire format, instead of sending them: the SDK deserializes it into its own exception class and
 * its retry strategy judges it, exactly as for an error from AWS. `answer` gets the operation
 * (`TransactWriteItems`, `UpdateItem`, ...) and the marshalled input; null lets the call through.
 */
export function injectDynamoErrors(answer: (operation: string, input: MarshalledInput) => InjectedError | null): Injection {
  let seen = 0;
  let injected = 0;
  const name = `testInjectedErrors${++counter}`;
  const stack = dynamo().middlewareStack;
  stack.addRelativeTo(
    (next: any, context: any) => async (args: any) => {
      const operation = String(context.commandName ?? "").replace(/Command$/, "");
      seen += 1;
      const error = answer(operation, args.input);
      if (!error) return next(args);
      injected += 1;
      const { type, message, ...rest } = error;
      const body = JSON.stringify({ __type: `com.amazonaws.dynamodb.v20120810#${type}`, Message: message, ...rest });
      return {
        response: {
          statusCode: 400,
          reason: "Bad Request",
          headers: { "content-type": "application/x-amz-json-1.0", "x-amzn-requestid": `injected-${injected}` },
          body: new TextEncoder().encode(body),
        },
      };
    },
    { name, relation: "after", toMiddleware: "deserializerMiddleware" },
  );
  const remove = () => {
    stack.remove(name);
    installed.delete(remove);
  };
  installed.add(remove);
  return { seen: () => seen, injected: () => injected, remove };
}

/** The first `times` calls that `matches` picks get `error`; the rest go through. */
export function failFirst(times: number, error: InjectedError, matches: (operation: string, input: MarshalledInput) => boolean): Injection {
  let failed = 0;
  return injectDynamoErrors((operation, input) => {
    if (failed >= times || !matches(operation, input)) return null;
    failed += 1;
    return error;
  });
}

/** Every key (as plain strings) a TransactWriteItems input touches, per action. */
export function transactionKeys(input: MarshalledInput): { action: string; pk: string }[] {
  return (input.TransactItems ?? []).map((item: Record<string, any>) => {
    const [action, body] = Object.entries(item)[0]!;
    const key = body.Key ?? body.Item;
    return { action, pk: String(key?.PK?.S ?? "") };
  });
}

/**
 * Makes the index partitions that `lagging` picks answer from a snapshot of themselves taken when
 * first queried and renewed only once it is older than `staleForMs`: entries of records deleted
 * since are still listed and records written since are not, as a global secondary index that has
 * not caught up. Only whole-partition queries (`#pk = :pk`) are served this way.
 */
export function lagIndexes(stack: LocalStack, options: { lagging: (indexName: string, partition: string) => boolean; staleForMs: number }): Injection {
  const reader = DynamoDBDocumentClient.from(stack.clients.dynamo);
  const snapshots = new Map<string, { takenAt: number; items: Record<string, unknown>[] }>();
  let seen = 0;
  let served = 0;
  const name = `testLaggingIndex${++counter}`;
  const clientStack = dynamo().middlewareStack;

  const snapshotOf = async (tableName: string, indexName: string, partitionKey: string, partition: string) => {
    const id = `${indexName}/${partition}`;
    const current = snapshots.get(id);
    if (current && Date.now() - current.takenAt < options.staleForMs) return current.items;
    const items: Record<string, unknown>[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await reader.send(
        new QueryCommand({
          TableName: tableName,
          IndexName: indexName,
          KeyConditionExpression: "#pk = :pk",
          ExpressionAttributeNames: { "#pk": partitionKey },
          ExpressionAttributeValues: { ":pk": partition },
          ExclusiveStartKey: startKey,
        }),
      );
      items.push(...(page.Items ?? []));
      startKey = page.LastEvaluatedKey;
    } while (startKey);
    snapshots.set(id, { takenAt: Date.now(), items });
    return items;
  };

  // Placed before the SDK's retries and deserialization: the input is marshalled by then, and the
  // output returned here skips the document client's unmarshalling, so it is given in plain form.
  clientStack.add(
    (next: any, context: any) => async (args: any) => {
      if (context.commandName !== "QueryCommand" || !args.input.IndexName) return next(args);
      const input = args.input;
      const partition = String(input.ExpressionAttributeValues?.[":pk"]?.S ?? "");
      if (!options.lagging(input.IndexName, partition)) return next(args);
      seen += 1;
      if (input.KeyConditionExpression !== "#pk = :pk") throw new Error(`lagIndexes serves whole-partition queries only, not ${input.KeyConditionExpression}`);
      const partitionKey = input.ExpressionAttributeNames["#pk"];
      const snapshot = [...(await snapshotOf(input.TableName, input.IndexName, partitionKey, partition))];
      snapshot.sort((a, b) => String(a[LIST_SORT_KEY]).localeCompare(String(b[LIST_SORT_KEY])));
      if (input.ScanIndexForward === false) snapshot.reverse();
      const after = input.ExclusiveStartKey?.[LIST_SORT_KEY]?.S;
      const start = after === undefined ? 0 : snapshot.findIndex((item) => item[LIST_SORT_KEY] === after) + 1;
      const limit = input.Limit ?? Number.POSITIVE_INFINITY;
      const items = snapshot.slice(start, start + limit);
      const last = items[items.length - 1];
      const more = start + items.length < snapshot.length;
      served += 1;
      return {
        output: {
          $metadata: { httpStatusCode: 200 },
          Items: items,
          Count: items.length,
          ScannedCount: items.length,
          LastEvaluatedKey: more && last ? { PK: last.PK, SK: last.SK, [partitionKey]: last[partitionKey], [LIST_SORT_KEY]: last[LIST_SORT_KEY] } : undefined,
        },
        response: { statusCode: 200, headers: {}, body: new Uint8Array() },
      };
    },
    { name, step: "finalizeRequest", priority: "low" },
  );
  const remove = () => {
    clientStack.remove(name);
    installed.delete(remove);
  };
  installed.add(remove);
  return { seen: () => seen, injected: () => served, remove };
}
