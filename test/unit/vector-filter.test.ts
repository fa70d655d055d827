import { describe, expect, it } from "vitest";
import {
  matchesFilter,
  type MetadataFilter,
  metadataFilter,
} from "../../functions/shared/domain/metadata-filter.ts";
import { toS3VectorsFilter } from "../../functions/shared/vector-store/s3-vectors-filter.ts";
import * as z from "../../functions/shared/platform/zod.ts";

function firstIssue(value: unknown) {
  const result = metadataFilter.safeParse(value);
  expect(result.success).toBe(false);
  return result.error!.issues[0]!;
}

function parse(value: unknown): MetadataFilter {
  return metadataFilter.parse(value);
}

describe("metadata filter validation", () => {
  it.each([
    [{}],
    [{ genre: "drama" }],
    [{ year: 2020, draft: false }],
    [{ genre: ["drama", "comedy"] }],
    [{ year: { $gte: 2000, $lt: 2010 } }],
    [{ "page.number": { $ne: 3 }, "file-name_v2": { $exists: true } }],
    [{ genre: { $in: ["drama", 3, true] }, lang: { $nin: ["de"] } }],
    [{ $or: [{ genre: "drama" }, { $and: [{ year: { $gt: 1999 } }, { rating: { $lte: 4.5 } }] }] }],
  ])("accepts %j", (filter) => {
    expect(metadataFilter.safeParse(filter)).toEqual({ success: true, data: filter });
  });

  it.each([
    [{ text: { $regex: "^a" } }, ["text", "$regex"], /unsupported operator \$regex; supported: \$eq, /],
    [{ $not: { genre: "drama" } }, ["$not"], /unsupported operator \$not/],
    [{ $nor: [{ genre: "drama" }] }, ["$nor"], /unsupported operator \$nor/],
    [{ tags: { $elemMatch: { $eq: "a" } } }, ["tags", "$elemMatch"], /unsupported operator \$elemMatch/],
    [{ tags: { $all: ["a", "b"] } }, ["tags", "$all"], /unsupported operator \$all/],
    [{ $eq: { genre: "drama" } }, ["$eq"], /\$eq must be applied to a field/],
    [{ genre: { $or: [{ $eq: "a" }] } }, ["genre", "$or"], /cannot be applied to a field/],
    [{ author: { name: "Ada" } }, ["author", "name"], /nested objects are not supported/],
    [{ "bad field!": 1 }, ["bad field!"], /field names must be/],
    [{ ["x".repeat(65)]: 1 }, ["x".repeat(65)], /field names must be/],
    [{ genre: null }, ["genre"], /null is not a supported value/],
    [{ year: { $gt: "2020" } }, ["year", "$gt"], /\$gt needs a number/],
    [{ genre: { $in: [] } }, ["genre", "$in"], /non-empty array/],
    [{ genre: { $in: [{ a: 1 }] } }, ["genre", "$in"], /non-empty array of strings, numbers or booleans/],
    [{ genre: [] }, ["genre"], /non-empty array/],
    [{ genre: { $exists: "yes" } }, ["genre", "$exists"], /\$exists needs true or false/],
    [{ genre: {} }, ["genre"], /needs at least one operator/],
    [{ $and: [] }, ["$and"], /non-empty array of conditions/],
    [{ $or: { genre: "a" } }, ["$or"], /non-empty array of conditions/],
    [{ $and: ["genre"] }, ["$and", 0], /must be an object of conditions/],
    [["genre"], [], /must be an object of conditions/],
    ["genre = drama", [], /must be an object of conditions/],
  ])("refuses %j at its path", (filter, path, message) => {
    const issue = firstIssue(filter);
    expect(issue.path).toEqual(path);
    expect(issue.message).toMatch(message);
  });

  it("names the full path when the filter sits inside a request body", () => {
    const body = z.object({ query: z.string(), filter: z.optional(metadataFilter) });
    const result = body.safeParse({ query: "q", filter: { $and: [{ year: 1 }, { year: { $gt: "x" } }] } });
    expect(result.success).toBe(false);
    expect(result.error!.issues[0]!.path).toEqual(["filter", "$and", 1, "year", "$gt"]);
  });

  it("allows nesting 8 levels deep but not 9", () => {
    const nest = (levels: number): unknown => (levels === 1 ? { a: 1 } : { $and: [nest(levels - 1)] });
    expect(metadataFilter.safeParse(nest(8)).success).toBe(true);
    expect(firstIssue(nest(9)).message).toBe("conditions are nested more than 8 levels deep");
  });

  it("allows 64 conditions but not 65", () => {
    const conditions = (count: number) => Object.fromEntries(Array.from({ length: count }, (_, i) => [`f${i}`, i]));
    expect(metadataFilter.safeParse(conditions(64)).success).toBe(true);
    expect(firstIssue(conditions(65)).message).toBe("a filter may hold at most 64 conditions");
    // Every operator counts, not only every field.
    expect(metadataFilter.safeParse({ $and: Array.from({ length: 33 }, () => ({ a: { $gt: 1, $lt: 9 } })) }).success).toBe(false);
  });
});

describe("matchesFilter", () => {
  const doc = { genre: "drama", year: 2004, draft: false, tags: ["a", "b"], rating: 4.5 };

  it("treats a bare value as $eq, strictly by type", () => {
    expect(matchesFilter(doc, parse({ genre: "drama" }))).toBe(true);
    expect(matchesFilter(doc, parse({ genre: "comedy" }))).toBe(false);
    expect(matchesFilter(doc, parse({ year: "2004" }))).toBe(false);
    expect(matchesFilter(doc, parse({ draft: false }))).toBe(true);
    expect(matchesFilter(doc, parse({ draft: 0 }))).toBe(false);
  });

  it("matches array metadata when any element matches $eq or $in, and $ne/$nin when none does", () => {
    expect(matchesFilter(doc, parse({ tags: "b" }))).toBe(true);
    expect(matchesFilter(doc, parse({ tags: { $eq: "c" } }))).toBe(false);
    expect(matchesFilter(doc, parse({ tags: { $in: ["c", "a"] } }))).toBe(true);
    expect(matchesFilter(doc, parse({ tags: ["x", "y"] }))).toBe(false);
    expect(matchesFilter(doc, parse({ tags: { $ne: "a" } }))).toBe(false);
    expect(matchesFilter(doc, parse({ tags: { $ne: "c" } }))).toBe(true);
    expect(matchesFilter(doc, parse({ tags: { $nin: ["b"] } }))).toBe(false);
    expect(matchesFilter(doc, parse({ tags: { $nin: ["z"] } }))).toBe(true);
  });

  it("compares numbers only with range operators", () => {
    expect(matchesFilter(doc, parse({ year: { $gt: 2000, $lte: 2004 } }))).toBe(true);
    expect(matchesFilter(doc, parse({ year: { $gt: 2004 } }))).toBe(false);
    expect(matchesFilter(doc, parse({ rating: { $gte: 4.5, $lt: 5 } }))).toBe(true);
    expect(matchesFilter(doc, parse({ genre: { $gt: 0 } }))).toBe(false);
  });

  it("treats a missing field as matching only $ne, $nin and $exists: false", () => {
    expect(matchesFilter(doc, parse({ author: "x" }))).toBe(false);
    expect(matchesFilter(doc, parse({ author: { $ne: "x" } }))).toBe(true);
    expect(matchesFilter(doc, parse({ author: { $nin: ["x"] } }))).toBe(true);
    expect(matchesFilter(doc, parse({ author: { $in: ["x"] } }))).toBe(false);
    expect(matchesFilter(doc, parse({ author: { $exists: false } }))).toBe(true);
    expect(matchesFilter(doc, parse({ genre: { $exists: true } }))).toBe(true);
    expect(matchesFilter(doc, parse({ author: { $lt: 5 } }))).toBe(false);
  });

  it("never takes inherited object properties for metadata", () => {
    expect(matchesFilter(doc, parse({ constructor: { $exists: true } }))).toBe(false);
    expect(matchesFilter(doc, parse({ toString: { $exists: false } }))).toBe(true);
  });

  it("combines keys and $and conjunctively and $or disjunctively", () => {
    expect(matchesFilter(doc, parse({ genre: "drama", year: 2005 }))).toBe(false);
    expect(matchesFilter(doc, parse({ $or: [{ genre: "comedy" }, { year: 2004 }] }))).toBe(true);
    expect(matchesFilter(doc, parse({ $or: [{ genre: "comedy" }, { year: 2005 }] }))).toBe(false);
    expect(matchesFilter(doc, parse({ $and: [{ genre: "drama" }, { $or: [{ tags: "z" }, { draft: false }] }] }))).toBe(true);
    expect(matchesFilter(doc, parse({}))).toBe(true);
  });
});

describe("toS3VectorsFilter", () => {
  it("spells implicit equality as $eq and a bare array as $in", () => {
    expect(toS3VectorsFilter(parse({ genre: "drama" }))).toEqual({ genre: { $eq: "drama" } });
    expect(toS3VectorsFilter(parse({ genre: ["a", "b"] }))).toEqual({ genre: { $in: ["a", "b"] } });
  });

  it("joins several conditions of one object with $and, one condition per object", () => {
    expect(toS3VectorsFilter(parse({ genre: "drama", year: { $gte: 2000, $lt: 2010 } }))).toEqual({
      $and: [{ genre: { $eq: "drama" } }, { year: { $gte: 2000 } }, { year: { $lt: 2010 } }],
    });
  });

  it("keeps the logical structure and passes operators through", () => {
    expect(
      toS3VectorsFilter(parse({ $or: [{ genre: "drama" }, { $and: [{ tags: { $nin: ["x"] } }, { draft: { $exists: false } }] }] })),
    ).toEqual({
      $or: [{ genre: { $eq: "drama" } }, { $and: [{ tags: { $nin: ["x"] } }, { draft: { $exists: false } }] }],
    });
  });

  it("leaves out filters that match everything", () => {
    expect(toS3VectorsFilter(undefined)).toBeUndefined();
    expect(toS3VectorsFilter(parse({}))).toBeUndefined();
    expect(toS3VectorsFilter(parse({ $and: [{}] }))).toBeUndefined();
    expect(toS3VectorsFilter(parse({ genre: "a", $or: [{}, { year: 1 }] }))).toEqual({ genre: { $eq: "a" } });
  });

  it("produces filters that select the same records as the original", () => {
    const records = [
      { genre: "drama", year: 2004, tags: ["a"] },
      { genre: "comedy", year: 1999, tags: ["b", "c"] },
      { genre: "drama", year: 2012 },
    ];
    const filters = [
      { genre: "drama", year: { $lt: 2010 } },
      { $or: [{ tags: "c" }, { year: { $gte: 2010 } }] },
      { tags: ["a", "c"], genre: { $ne: "drama" } },
      { tags: { $exists: false } },
    ];
    for (const filter of filters) {
      const parsed = parse(filter);
      const translated = toS3VectorsFilter(parsed) as MetadataFilter;
      for (const record of records) expect(matchesFilter(record, translated)).toBe(matchesFilter(record, parsed));
    }
  });
});
