/**
 * A hook on every AWS SDK client the service creates: told of each command before it is sent (or
 * presigned), with the command's input. Nothing listens in production; the integration suite
 * listens to check that each function's synthesized IAM policy grants every call its code makes,
 * and the limit checks read the requests built for S3 Vectors and Bedrock.
 */
export interface SdkCall {
  /** The SDK's client name: `DynamoDBClient`, `S3Client`, `SQSClient`, `S3VectorsClient`, `BedrockRuntimeClient`. */
  client: string;
  /** The command name without its `Command` suffix: `GetItem`, `PutObject`, `SendMessage`. */
  command: string;
  input: Record<string, unknown>;
}

type Observer = (call: SdkCall) => void;

let observer: Observer | null = null;

export function setSdkCallObserver(next: Observer | null): void {
  observer = next;
}

interface ObservableClient {
  middlewareStack: {
    add(
      middleware: (next: (args: { input: object }) => Promise<unknown>, context: { clientName?: string; commandName?: string }) => (args: { input: object }) => Promise<unknown>,
      options: { step: "initialize"; name: string },
    ): void;
  };
}

/** Adds the hook to a client; returns the client. */
export function observed<T extends ObservableClient>(client: T): T {
  client.middlewareStack.add(
    (next, context) => (args) => {
      observer?.({
        client: context.clientName ?? "",
        command: (context.commandName ?? "").replace(/Command$/, ""),
        input: args.input as Record<string, unknown>,
      });
      return next(args);
    },
    { step: "initialize", name: "serviceSdkCallObserver" },
  );
  return client;
}
