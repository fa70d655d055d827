import { describe, expect, it } from "vitest";
import { findIllFormedString, formatIssue } from "../../functions/shared/validation.ts";

const found = (input: unknown) => {
  const issue = findIllFormedString(input);
  return issue && formatIssue(issue);
};

describe("well-formed request strings", () => {
  it("accepts surrogate pairs, other text and non-strings", () => {
    expect(found({ name: "🙂 Résumé", list: ["a", 1, true, null, { nested: "日本" }] })).toBeNull();
    expect(found("plain")).toBeNull();
  });

  it.each(["\ud800", "\udfff", "a\ud800b", "\udc00\ud800", "end\ud83d"])("finds the lone surrogate in %j", (value) => {
    expect(found({ value })).toMatch(/^value: must be well-formed Unicode text/);
  });

  it("names the path of the first ill-formed value in document order", () => {
    expect(found({ payload: { items: [{ text: "ok" }, { fileUrl: "x\ud800" }] }, later: "\ud800" })).toMatch(/^payload\.items\.1\.fileUrl: /);
  });

  it("names the object that holds an ill-formed field name", () => {
    expect(found({ config: { metadata: { "k\ud800": "v" } } })).toBe("config.metadata: a field name contains an unpaired UTF-16 surrogate");
  });

  it("walks nesting of any depth without overflowing the stack", () => {
    const depth = 200_000;
    const nested = JSON.parse(`${"[".repeat(depth)}"\\ud800"${"]".repeat(depth)}`);
    expect(findIllFormedString(nested)?.path).toHaveLength(depth);
  });
});
