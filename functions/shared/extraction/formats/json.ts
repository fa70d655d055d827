import type { FormatExtractor } from "../types.ts";
import { DocumentExtractionError } from "../extraction-error.ts";
import { textFormatExtractor } from "../text-decoding.ts";

/** JSON re-indented as written, one field per line. */
const extractor = textFormatExtractor("json", jsonToText);

/** Beyond this the data is machine-made or hostile; real documents stay far below it. */
const MAX_JSON_DEPTH = 512;
/** Deeper levels stop indenting, so pathological nesting cannot multiply the output size. */
const MAX_INDENT_LEVELS = 20;
/** Arrays of plain values up to this width stay on one line, as `"tags": ["a", "b"]`. */
const INLINE_ARRAY_WIDTH = 80;
const NEWLINE_INDENTS = Array.from({ length: MAX_INDENT_LEVELS + 1 }, (_, level) => `\n${"  ".repeat(level)}`);
const JSON_NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const STRING_RUN = /[^"\\\u0000-\u001f]*/y;

class JsonSyntaxError extends Error {
  constructor(
    readonly index: number,
    reason: string,
  ) {
    super(reason);
  }
}

interface JsonContainer {
  isObject: boolean;
  /** Index in the output of the opening bracket. */
  start: number;
  /** The plain values of an array while it could still be written on one line. */
  inline: string[] | null;
  inlineWidth: number;
}

/** What the JSON grammar allows next. */
const Expect = { Value: 0, AfterValue: 1, FirstKey: 2, Key: 3, Colon: 4, FirstItem: 5, Item: 6 } as const;
type Expect = (typeof Expect)[keyof typeof Expect];

/**
 * Re-indents JSON without parsing it into objects: numbers, key order and duplicate keys stay as
 * written (JSON.parse would round 64-bit ids and move integer-like keys first), and the explicit
 * stack keeps deep nesting from overflowing the call stack.
 */
function formatJson(source: string, separateTopLevelItems: boolean): string {
  const out: string[] = [];
  const stack: JsonContainer[] = [];
  const length = source.length;
  let index = 0;
  let expect: Expect = Expect.Value;
  const newline = (depth: number) => NEWLINE_INDENTS[Math.min(depth, MAX_INDENT_LEVELS)]!;
  const unexpected = (what: string) => new JsonSyntaxError(index, `${what}, found ${describeChar(source, index)}`);

  for (;;) {
    while (index < length) {
      const code = source.charCodeAt(index);
      if (code !== 0x20 && code !== 0x0a && code !== 0x0d && code !== 0x09) break;
      index++;
    }
    if (index >= length) {
      if (expect === Expect.AfterValue && stack.length === 0) break;
      throw new JsonSyntaxError(index, stack.length ? "the JSON ends before it is complete" : "there is no JSON value");
    }
    const code = source.charCodeAt(index);
    const top = stack[stack.length - 1];

    switch (expect) {
      case Expect.FirstKey:
      case Expect.Key: {
        if (code === 0x7d && expect === Expect.FirstKey) {
          index++;
          stack.pop();
          out.push("}");
          expect = Expect.AfterValue;
          continue;
        }
        if (code !== 0x22) {
          if (code === 0x7d) throw new JsonSyntaxError(index, "a trailing comma before '}' is not allowed");
          throw unexpected("expected a property name in double quotes");
        }
        const end = scanString(source, index);
        out.push(newline(stack.length), renderString(source.slice(index, end)), ": ");
        index = end;
        expect = Expect.Colon;
        continue;
      }
      case Expect.Colon:
        if (code !== 0x3a) throw unexpected("expected ':' after a property name");
        index++;
        expect = Expect.Value;
        continue;
      case Expect.FirstItem:
      case Expect.Item: {
        if (code === 0x5d) {
          if (expect === Expect.Item) throw new JsonSyntaxError(index, "a trailing comma before ']' is not allowed");
          index++;
          stack.pop();
          out.push("]");
          expect = Expect.AfterValue;
          continue;
        }
        const array = top!;
        const isContainer = code === 0x7b || code === 0x5b;
        if (isContainer) array.inline = null;
        const blankLine = separateTopLevelItems && stack.length === 1 && expect === Expect.Item && isContainer;
        out.push(blankLine ? `\n${newline(1)}` : newline(stack.length));
        expect = Expect.Value;
        continue;
      }
      case Expect.Value: {
        if (code === 0x7b || code === 0x5b) {
          if (stack.length >= MAX_JSON_DEPTH) {
            throw new JsonSyntaxError(index, `the JSON is nested more than ${MAX_JSON_DEPTH} levels deep`);
          }
          const isObject = code === 0x7b;
          stack.push({ isObject, start: out.length, inline: isObject ? null : [], inlineWidth: 0 });
          out.push(isObject ? "{" : "[");
          index++;
          expect = isObject ? Expect.FirstKey : Expect.FirstItem;
          continue;
        }
        const end = scanScalar(source, index);
        const token = code === 0x22 ? renderString(source.slice(index, end)) : source.slice(index, end);
        out.push(token);
        if (top?.inline) {
          top.inline.push(token);
          top.inlineWidth += token.length + 2;
        }
        index = end;
        expect = Expect.AfterValue;
        continue;
      }
      case Expect.AfterValue: {
        if (!top) {
          const hint =
            code === 0x7b || code === 0x5b ? " (one value per line is JSON Lines: upload it as a .jsonl file)" : "";
          throw new JsonSyntaxError(index, `unexpected data after the end of the JSON value${hint}`);
        }
        if (code === 0x2c) {
          index++;
          out.push(",");
          expect = top.isObject ? Expect.Key : Expect.Item;
          continue;
        }
        if (top.isObject ? code !== 0x7d : code !== 0x5d) {
          throw unexpected(
            top.isObject ? "expected ',' or '}' after a property value" : "expected ',' or ']' after an array item",
          );
        }
        index++;
        stack.pop();
        if (top.inline && top.inlineWidth <= INLINE_ARRAY_WIDTH) {
          out.length = top.start;
          out.push(`[${top.inline.join(", ")}]`);
        } else {
          out.push(newline(stack.length), top.isObject ? "}" : "]");
        }
        continue;
      }
    }
  }
  return out.join("");
}

function scanString(source: string, start: number): number {
  let index = start + 1;
  for (;;) {
    STRING_RUN.lastIndex = index;
    STRING_RUN.test(source);
    index = STRING_RUN.lastIndex;
    if (index >= source.length) throw new JsonSyntaxError(start, "a string is never closed");
    const code = source.charCodeAt(index);
    if (code === 0x22) return index + 1;
    if (code === 0x5c) {
      const escape = source[index + 1];
      if (escape === "u") {
        if (!/^[0-9a-fA-F]{4}$/.test(source.slice(index + 2, index + 6))) {
          throw new JsonSyntaxError(index, "invalid \\u escape in a string");
        }
        index += 6;
      } else if (escape !== undefined && '"\\/bfnrt'.includes(escape)) {
        index += 2;
      } else {
        throw new JsonSyntaxError(index, "invalid escape sequence in a string");
      }
      continue;
    }
    throw new JsonSyntaxError(
      index,
      code === 0x0a ? "a line break inside a string (it must be written as \\n)" : "a control character inside a string",
    );
  }
}

function scanScalar(source: string, start: number): number {
  const code = source.charCodeAt(start);
  if (code === 0x22) return scanString(source, start);
  if (code === 0x2d || (code >= 0x30 && code <= 0x39)) {
    JSON_NUMBER.lastIndex = start;
    if (!JSON_NUMBER.test(source)) throw new JsonSyntaxError(start, "invalid number");
    return JSON_NUMBER.lastIndex;
  }
  for (const literal of ["true", "false", "null"]) {
    if (source.startsWith(literal, start)) return start + literal.length;
  }
  throw new JsonSyntaxError(start, `expected a value, found ${describeChar(source, start)}`);
}

/** Escapes like \u00e9 are spelled out so the text embeds as the words it holds. */
function renderString(token: string): string {
  return token.includes("\\u") ? JSON.stringify(JSON.parse(token)) : token;
}

function describeChar(source: string, index: number): string {
  const codePoint = source.codePointAt(index);
  if (codePoint === undefined) return "the end of the data";
  if (codePoint >= 0x20) return `'${String.fromCodePoint(codePoint)}'`;
  return `character U+${codePoint.toString(16).padStart(4, "0").toUpperCase()}`;
}

function lineAndColumn(source: string, index: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let newline = source.indexOf("\n"); newline !== -1 && newline < index; newline = source.indexOf("\n", newline + 1)) {
    line++;
    lineStart = newline + 1;
  }
  return { line, column: index - lineStart + 1 };
}

/** A top-level array is usually a list of records: a blank line between them lets chunks end there. */
export function jsonToText(text: string): string {
  if (text.trim() === "") return "";
  try {
    return formatJson(text, true);
  } catch (error) {
    if (!(error instanceof JsonSyntaxError)) throw error;
    const { line, column } = lineAndColumn(text, error.index);
    throw new DocumentExtractionError(`invalid JSON at line ${line}, column ${column}: ${error.message}`);
  }
}

export function jsonLinesToText(text: string): string {
  const records: string[] = [];
  const lines = text.split("\n");
  for (let number = 1; number <= lines.length; number++) {
    const line = lines[number - 1]!;
    if (line.trim() === "") continue;
    try {
      records.push(formatJson(line, false));
    } catch (error) {
      if (!(error instanceof JsonSyntaxError)) throw error;
      throw new DocumentExtractionError(`invalid JSON at line ${number}, column ${error.index + 1}: ${error.message}`);
    }
  }
  return records.join("\n\n");
}

export function create(): FormatExtractor {
  return extractor;
}
