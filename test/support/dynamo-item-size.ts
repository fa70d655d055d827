/**
 * The size of an item as DynamoDB counts it against its 400 KB limit
 * (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/CapacityUnitCalculations.html):
 * attribute names and strings in UTF-8 bytes; a number 1 byte per two significant digits plus 1;
 * null and booleans 1 byte; a list or map 3 bytes plus its elements plus 1 byte per element.
 * Values are plain JavaScript as the document client marshals them; `undefined` is left out.
 */
export const DYNAMODB_MAX_ITEM_BYTES = 400 * 1024;

export function dynamoItemSize(item: Record<string, unknown>): number {
  return Object.entries(item).reduce((sum, [name, value]) => (value === undefined ? sum : sum + utf8(name) + valueSize(value)), 0);
}

function utf8(text: string): number {
  return Buffer.byteLength(text, "utf8");
}

function valueSize(value: unknown): number {
  if (typeof value === "string") return utf8(value);
  if (typeof value === "number") return numberSize(value);
  if (typeof value === "boolean" || value === null) return 1;
  if (Array.isArray(value)) return 3 + value.reduce((sum: number, element) => sum + 1 + valueSize(element), 0);
  if (typeof value === "object") {
    const entries = Object.entries(value).filter(([, child]) => child !== undefined);
    return 3 + entries.reduce((sum, [name, child]) => sum + 1 + utf8(name) + valueSize(child), 0);
  }
  throw new Error(`no DynamoDB size for ${typeof value}`);
}

function numberSize(value: number): number {
  const digits = Math.abs(value).toExponential().split("e")[0]!.replace(".", "").replace(/0+$/, "");
  return Math.ceil(Math.max(digits.length, 1) / 2) + 1;
}
