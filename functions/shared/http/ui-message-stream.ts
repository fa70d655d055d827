import { randomUUID } from "node:crypto";
import { type ChatSource, citedMarkers } from "../domain/chat.ts";
import { ChatError } from "../llm/types.ts";
import { logger } from "../platform/logger.ts";
import type { StartedAnswer } from "../workflows/chat.ts";

/**
 * A chat answer as the AI SDK's UI message stream (v1): server-sent events, one JSON part each,
 * ending with `[DONE]`. It is what the service this interface comes from emits, so `useChat` and
 * the SDK's `readUIMessageStream` read it unchanged. The sources come first (`source-url` when the
 * citation is a web address, `source-document` otherwise, and all of them in `data-sources` with
 * their numbers and text), then the text as the model produces it; `text-end` carries the [n]
 * citations found in it.
 */
export const UI_MESSAGE_STREAM_HEADERS: Record<string, string> = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-store",
  "x-vercel-ai-ui-message-stream": "v1",
  "x-accel-buffering": "no",
};

const TEXT_ID = "text-1";

function event(part: Record<string, unknown>): string {
  return `data: ${JSON.stringify(part)}\n\n`;
}

/** How a source is named in the stream: its document's name, and its citation when that is a web address. */
function described(source: ChatSource): { title: string; url: string | null } {
  const url = source.citation !== null && /^https?:\/\//i.test(source.citation) ? source.citation : null;
  return { title: source.documentName ?? `Source ${source.index}`, url };
}

function sourcePart(source: ChatSource): Record<string, unknown> {
  const { title, url } = described(source);
  return url
    ? { type: "source-url", sourceId: source.id, url, title }
    : { type: "source-document", sourceId: source.id, mediaType: "text/plain", title, ...(source.documentName ? { filename: source.documentName } : {}) };
}

function citationOf(source: ChatSource) {
  const { title, url } = described(source);
  return url ? { type: "source", sourceType: "url", id: source.id, url, title } : { type: "source", sourceType: "document", id: source.id, mediaType: "text/plain", title };
}

/**
 * Agentic answers add, per round, the model's tool calls as the SDK's tool parts
 * (`tool-input-available`, then `tool-output-available` or `tool-output-error`), sources as the
 * searches find them (`data-sources` under one id, so each list replaces the one before), and
 * `finish-step`/`start-step` between rounds; each round's text is its own text part.
 */
export async function* uiMessageStream(answer: StartedAnswer, namespaceId: string): AsyncGenerator<string> {
  let finished = false;
  try {
    yield event({ type: "start", messageId: `msg_${randomUUID()}`, messageMetadata: { model: answer.model, ...(answer.rerank ? { rerank: answer.rerank.status } : {}) } });
    yield event({ type: "start-step" });
    // Sources are only appended (an agent's search numbers each new chunk once; an expansion changes a
    // source's text in place), so the ones not yet announced are those past the count announced.
    let announced = 0;
    const newSources = function* () {
      while (announced < answer.sources.length) yield event(sourcePart(answer.sources[announced++]!));
    };
    const sourcesPart = () => event({ type: "data-sources", ...(answer.agentic ? { id: "sources" } : {}), data: answer.sources });
    yield* newSources();
    yield sourcesPart();
    let textId: string | null = null;
    let text = "";
    let textCount = 0;
    const openText = () => {
      textId = `text-${++textCount}`;
      text = "";
      return event({ type: "text-start", id: textId });
    };
    const closeText = () => {
      const id = textId;
      textId = null;
      const citations = citedMarkers(text, answer.sources.length).map((marker) => ({
        source: citationOf(answer.sources[marker.index - 1]!),
        startIndex: marker.start,
        endIndex: marker.end,
      }));
      return event({ type: "text-end", id, ...(citations.length > 0 ? { citations } : {}) });
    };
    // Single-shot opens its one text part at once, as it always has; agentic rounds may have none.
    if (!answer.agentic) yield openText();
    let finishReason = "other";
    try {
      for await (const delta of answer.deltas) {
        switch (delta.type) {
          case "text":
            if (textId === null) yield openText();
            text += delta.text;
            yield event({ type: "text-delta", id: textId, delta: delta.text });
            break;
          case "finish":
            finishReason = delta.reason;
            break;
          case "tool-call":
            if (textId !== null) yield closeText();
            yield event({ type: "tool-input-available", toolCallId: delta.call.id, toolName: delta.call.name, input: delta.call.input ?? {} });
            break;
          case "tool-result":
            yield event({ type: "tool-output-available", toolCallId: delta.callId, output: delta.output });
            break;
          case "tool-error":
            yield event({ type: "tool-output-error", toolCallId: delta.callId, errorText: delta.errorText });
            break;
          case "sources":
            yield* newSources();
            yield sourcesPart();
            break;
          case "step":
            yield event({ type: "finish-step" });
            yield event({ type: "start-step" });
            break;
        }
      }
    } catch (error) {
      // The answer has begun: the failure can only be told in the stream.
      const message = error instanceof ChatError ? error.message : "The answer was interrupted.";
      if (error instanceof ChatError) logger.warn("the language model failed part-way", { namespaceId, model: answer.model, error: error.message });
      else logger.info("the answer stopped early (the client left, or the stream closed)", { namespaceId, model: answer.model, error: String(error) });
      yield event({ type: "error", errorText: message });
      finished = true;
      yield "data: [DONE]\n\n";
      return;
    }
    if (textId !== null) yield closeText();
    yield event({ type: "finish-step" });
    yield event({ type: "finish", finishReason });
    finished = true;
    yield "data: [DONE]\n\n";
  } finally {
    // The client went away before the end: stop paying for tokens nobody reads.
    if (!finished) answer.abort();
  }
}
