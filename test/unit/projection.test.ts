import { describe, expect, it } from "vitest";
import { projectionOf } from "../../functions/shared/db/dynamo/batch-get.ts";

describe("a DynamoDB projection of record fields", () => {
  it("names every field by a placeholder, so reserved words such as status are safe", () => {
    expect(projectionOf(["id", "status"])).toEqual({ expression: "#f0, #f1", names: { "#f0": "id", "#f1": "status" } });
  });

  it("reads one attribute of a map for a dotted field, each part by its own placeholder", () => {
    expect(projectionOf(["id", "source.type"])).toEqual({ expression: "#f0, #f1.#f1_1", names: { "#f0": "id", "#f1": "source", "#f1_1": "type" } });
  });

  it("projects nothing without fields", () => {
    expect(projectionOf(undefined)).toBeNull();
  });
});
