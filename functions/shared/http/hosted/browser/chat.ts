import { byId, citationNode, type ErrorBody, pagePath, postJson } from "./dom.ts";

/** A source as the chat's `data-sources` part carries it. */
interface Source {
  index: number;
  documentName: string | null;
  citation: string | null;
  text: string;
}

/** The parts of the AI SDK's UI message stream (http/ui-message-stream.ts) the page reads. */
type StreamPart = { type: "data-sources"; data: Source[] } | { type: "text-delta"; delta: string } | { type: "error"; errorText: string } | { type: string };

interface Message {
  role: "user" | "assistant";
  content: string;
}

/**
 * The chat tab: reads the answer as the AI SDK's UI message stream and shows each text delta as it
 * arrives; [n] in the answer links to the source it names.
 */
export function setUpChat(): void {
  const form = document.getElementById("chat-form");
  if (!form) return;
  const input = byId<HTMLInputElement>("chat-question");
  const button = form.querySelector<HTMLButtonElement>("button[type=submit]")!;
  const log = byId("chat-log");
  const status = byId("chat-status");
  const endpoint = `${pagePath()}/chat`;
  const history: Message[] = [];
  let turn = 0;

  const ask = async (): Promise<void> => {
    const question = input.value.trim();
    if (!question) return;
    turn += 1;
    const prefix = `answer-${turn}-source-`;
    const asked = document.createElement("div");
    asked.className = "turn question";
    asked.textContent = question;
    const answered = document.createElement("div");
    answered.className = "turn answer";
    const answerText = document.createElement("p");
    answered.append(answerText);
    log.append(asked, answered);
    input.value = "";
    button.disabled = true;
    // Screen readers read the answer once it is complete, not once per streamed piece.
    log.setAttribute("aria-busy", "true");
    status.textContent = "Answering…";
    history.push({ role: "user", content: question });
    let text = "";
    let sources: Source[] = [];
    let failure: string | null = null;
    try {
      const response = await postJson(endpoint, { messages: history });
      if (!response.ok || !response.body) {
        const body = (await response.json().catch(() => null)) as ErrorBody | null;
        failure = body && body.error ? body.error.message : "The answer failed.";
      } else {
        for await (const part of streamParts(response.body)) {
          if (part.type === "data-sources" && "data" in part) sources = part.data;
          else if (part.type === "text-delta" && "delta" in part) {
            text += part.delta;
            renderAnswer(answerText, text, sources, prefix);
          } else if (part.type === "error" && "errorText" in part) failure = part.errorText;
        }
      }
    } catch {
      failure = "The answer failed. Try again.";
    }
    renderAnswer(answerText, text, sources, prefix);
    if (failure) {
      const note = document.createElement("p");
      note.className = "error";
      note.textContent = failure;
      answered.append(note);
      history.pop();
    } else {
      history.push({ role: "assistant", content: text });
      renderSources(answered, sources, prefix);
    }
    log.setAttribute("aria-busy", "false");
    status.textContent = failure ? "The answer failed." : "Answered.";
    button.disabled = false;
    input.focus();
  };

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    void ask();
  });
  for (const example of document.querySelectorAll<HTMLElement>(".example[data-target=chat]")) {
    example.addEventListener("click", () => {
      input.value = example.textContent ?? "";
      void ask();
    });
  }
}

/** The server-sent events of the stream, one parsed part per `data:` event, `[DONE]` left out. */
async function* streamParts(body: ReadableStream<BufferSource>): AsyncGenerator<StreamPart> {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffered += value;
    let end: number;
    while ((end = buffered.indexOf("\n\n")) !== -1) {
      const line = buffered.slice(0, end);
      buffered = buffered.slice(end + 2);
      if (!line.startsWith("data: ")) continue;
      const data = line.slice(6);
      if (data === "[DONE]") continue;
      yield JSON.parse(data) as StreamPart;
    }
  }
}

/** The answer as text, each [n] that names a source a link to it. */
function renderAnswer(element: HTMLElement, text: string, sources: Source[], prefix: string): void {
  element.replaceChildren();
  let last = 0;
  for (const match of text.matchAll(/\[(\d{1,3})\]/g)) {
    const source = sources[Number(match[1]) - 1];
    if (!source) continue;
    element.append(text.slice(last, match.index));
    const link = document.createElement("a");
    link.href = `#${prefix}${source.index}`;
    link.textContent = match[0];
    link.setAttribute("aria-label", `Source ${source.index}${source.documentName ? `: ${source.documentName}` : ""}`);
    element.append(link);
    last = match.index + match[0].length;
  }
  element.append(text.slice(last));
}

function renderSources(container: HTMLElement, sources: Source[], prefix: string): void {
  if (sources.length === 0) return;
  const list = document.createElement("ol");
  list.className = "sources";
  for (const source of sources) {
    const item = document.createElement("li");
    item.id = `${prefix}${source.index}`;
    item.tabIndex = -1;
    const title = document.createElement("span");
    title.textContent = source.documentName || `Source ${source.index}`;
    item.append(title);
    if (source.citation) item.append(" · ", citationNode(source.citation));
    const details = document.createElement("details");
    const summary = document.createElement("summary");
    summary.textContent = "Passage";
    const passage = document.createElement("p");
    passage.textContent = source.text;
    details.append(summary, passage);
    item.append(details);
    list.append(item);
  }
  const heading = document.createElement("p");
  heading.className = "hit-meta";
  heading.textContent = "Sources";
  container.append(heading, list);
}
