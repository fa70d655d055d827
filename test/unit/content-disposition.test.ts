import { describe, expect, it } from "vitest";
import { contentDisposition, downloadBaseName, encodeRfc8187 } from "../../functions/shared/storage/presign.ts";

/** RFC 8187 section 3.2.1: the characters that may appear in `filename*` unencoded. */
const ATTR_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789!#$&+-.^_`|~";

describe("download names", () => {
  it.each([
    ["../../../etc/passwd.txt", "passwd.txt"],
    ["..\\..\\windows\\win.ini", "win.ini"],
    ["reports/2024/q1.md", "q1.md"],
    ["handbook.md", "handbook.md"],
    ["dir/", "download"],
    ["..", "download"],
    ["a/..", "download"],
    ["   ", "download"],
    ["", "download"],
  ])("offers only the base name of %j", (name, base) => {
    expect(downloadBaseName(name)).toBe(base);
    expect(contentDisposition(name)).toBe(`attachment; filename="${base}"; filename*=UTF-8''${base}`);
  });

  it("replaces quotes, backslashes and percent signs in the ASCII fallback and encodes them in filename*", () => {
    expect(contentDisposition('say "hi" 100%.txt')).toBe(
      `attachment; filename="say _hi_ 100_.txt"; filename*=UTF-8''say%20%22hi%22%20100%25.txt`,
    );
  });

  it("keeps non-ASCII names exact in filename* and replaces them in the fallback", () => {
    expect(contentDisposition("Résumé – 日本.md")).toBe(
      `attachment; filename="R_sum_ _ __.md"; filename*=UTF-8''R%C3%A9sum%C3%A9%20%E2%80%93%20%E6%97%A5%E6%9C%AC.md`,
    );
    expect(contentDisposition("🙂.txt")).toBe(`attachment; filename="_.txt"; filename*=UTF-8''%F0%9F%99%82.txt`);
  });

  it("replaces control characters, so a name cannot break the header", () => {
    const header = contentDisposition("a\r\nSet-Cookie: x=1\u0000\u007f\u0085.txt");
    expect(header).toBe(`attachment; filename="a__Set-Cookie: x=1___.txt"; filename*=UTF-8''a__Set-Cookie%3A%20x%3D1___.txt`);
  });

  it("gives a working name for a stored name with a lone surrogate", () => {
    expect(contentDisposition("a\ud800b.txt")).toBe(`attachment; filename="a_b.txt"; filename*=UTF-8''a%EF%BF%BDb.txt`);
  });

  it("leaves exactly RFC 8187's attr-chars unencoded", () => {
    for (let code = 0; code < 128; code += 1) {
      const char = String.fromCharCode(code);
      const expected = ATTR_CHARS.includes(char) ? char : `%${code.toString(16).toUpperCase().padStart(2, "0")}`;
      expect(encodeRfc8187(char), JSON.stringify(char)).toBe(expected);
    }
    // The characters encodeURIComponent leaves alone but RFC 8187 does not allow; `'` ends the charset part.
    expect(encodeRfc8187("it's (a)*")).toBe("it%27s%20%28a%29%2A");
  });
});
