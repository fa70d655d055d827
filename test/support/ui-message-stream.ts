import { parseJsonEventStream, readUIMessageStream, type UIMessage, type UIMessageChunk, uiMessageChunkSchema } from "ai";

/** Reads a UI message stream with the AI SDK's own parser and assembler, as a chat front end would. */
export async function assembled(raw: string): Promise<{ chunks: UIMessageChunk[]; message: UIMessage | undefined }> {
  const chunks: UIMessageChunk[] = [];
  const parsed = parseJsonEventStream({ stream: new Response(raw).body!, schema: uiMessageChunkSchema });
  const checked = parsed.pipeThrough(
    new TransformStream({
      transform(result, controller) {
        if (!result.success) throw new Error(`not a UI message chunk: ${String(result.error)}`);
        chunks.push(result.value);
        controller.enqueue(result.value);
      },
    }),
  );
  let message: UIMessage | undefined;
  for await (const snapshot of readUIMessageStream({ stream: checked })) message = snapshot;
  return { chunks, message };
}
