import { describe, expect, it } from "vitest";
import { merge, overlapOf, passageWindow } from "../../functions/shared/workflows/expansion.ts";

describe("joining a hit with its neighbours", () => {
  it("concatenates contiguous chunks and marks where the hit lies", () => {
    const passage = merge(
      [
        { sequence: 3, text: "Alpha beta. " },
        { sequence: 4, text: "Gamma delta. " },
        { sequence: 5, text: "Epsilon." },
      ],
      4,
    );
    expect(passage.text).toBe("Alpha beta. Gamma delta. Epsilon.");
    expect(passage.text.slice(passage.hit.start, passage.hit.end)).toBe("Gamma delta. ");
    expect(passage.chunks).toEqual({ first: 3, last: 5 });
  });

  it("drops the repetition of overlapping chunks, but only when the document was chunked with an overlap", () => {
    const pieces = [
      { sequence: 0, text: "The ferry leaves at nine. It returns at five." },
      { sequence: 1, text: "It returns at five. Tickets are sold on board." },
    ];
    const overlapped = merge(pieces, 1, 25);
    expect(overlapped.text).toBe("The ferry leaves at nine. It returns at five. Tickets are sold on board.");
    expect(overlapped.text.slice(overlapped.hit.start, overlapped.hit.end)).toBe(pieces[1]!.text);
    // Without an overlap the repeated sentence is the document's own: it stays.
    expect(merge(pieces, 1).text).toBe(pieces[0]!.text + pieces[1]!.text);
  });

  it("takes a short coincidence for no overlap", () => {
    expect(overlapOf("ends with the", "the start", 40)).toBe(0);
  });
});

describe("a passage cut to a limit", () => {
  const passage = { text: `${"a".repeat(100)}HIT${"b".repeat(100)}`, hit: { start: 100, end: 103 }, chunks: { first: 0, last: 2 } };

  it("keeps the hit and shares the rest between both sides", () => {
    const window = passageWindow(passage, 23);
    expect(window).toBe(`${"a".repeat(10)}HIT${"b".repeat(10)}`);
  });

  it("gives the room one side does not need to the other", () => {
    const early = { ...passage, text: `aaHIT${"b".repeat(100)}`, hit: { start: 2, end: 5 } };
    expect(passageWindow(early, 20)).toBe(`aaHIT${"b".repeat(15)}`);
  });

  it("cuts a hit longer than the limit from its start", () => {
    expect(passageWindow(passage, 2)).toBe("HI");
  });
});
