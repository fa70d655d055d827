import { config, type core } from "zod/mini";

type $ZodIssue = core.$ZodIssue;
import { en } from "zod/locales";

/**
 * The one zod every schema module imports, as `import * as z from "./validation.ts"`. `zod/mini` is
 * the same validation core as classic zod with functions in place of methods (`z.optional(s)` for
 * `s.optional()`, `.check(z.minLength(1))` for `.min(1)`), which lets the bundler drop what a
 * function does not use: about 15 KB minified against 454 KB for classic zod, over half of an HTTP
 * function's bundle (see bench/bundles.ts).
 *
 * Re-exported with `export *` and imported as a namespace on purpose: esbuild shakes unused exports
 * out of a star import, but a namespace object exported as a value (`export { z }`) has to be kept
 * whole, which brings back all of zod (the JIT compiler, JSON Schema, every locale; 430 KB).
 *
 * Classic zod registers English messages on first use; mini leaves that to the application, and
 * without it every default message would be a bare "Invalid input". Configured here, once, by the
 * module every schema module imports, so default messages ("Too small: expected string to have
 * >=1 characters") read exactly as they did with classic zod. `en` is imported by name: the
 * `z.locales.en()` of the docs pulls every locale zod ships (about 260 KB) into the bundle.
 *
 * Classic zod also installs a memoizer that lets recursive schemas (z.lazy, getters) parse inputs
 * that refer to themselves. It removes itself from any schema that is not recursive, and none of
 * ours is, so leaving it out changes nothing.
 */
config(en());

export * from "zod/mini";

/** The first issue of a failed parse as `<field path>: <reason>`, the form every 422 message takes. */
export function formatIssue(issue: Pick<$ZodIssue, "path" | "message"> | undefined): string {
  if (!issue) return "The request is invalid.";
  const path = issue.path.map(String).join(".");
  return path ? `${path}: ${issue.message}` : issue.message;
}

/**
 * The first string of a parsed request (a value or a field name, at any depth) that is not
 * well-formed UTF-16, as an issue naming its path. JSON's `\ud800` escape yields a lone surrogate
 * that has no UTF-8 form: S3 key and URL encoders, `encodeURIComponent` and header writers throw on
 * it, and DynamoDB or a provider would store or see something else than was sent. Walked without
 * recursion, since a body may nest as deep as its size allows.
 */
export function findIllFormedString(input: unknown): Pick<$ZodIssue, "path" | "message"> | null {
  // Each entry links to its parent instead of carrying its path, so depth costs no copying.
  type Entry = { value: unknown; key: PropertyKey | null; parent: Entry | null };
  const pathOf = (entry: Entry | null): PropertyKey[] => {
    const path: PropertyKey[] = [];
    for (let at = entry; at !== null && at.key !== null; at = at.parent) path.push(at.key);
    return path.reverse();
  };
  const pending: Entry[] = [{ value: input, key: null, parent: null }];
  for (let entry = pending.pop(); entry !== undefined; entry = pending.pop()) {
    const { value } = entry;
    if (typeof value === "string") {
      if (!value.isWellFormed()) return { path: pathOf(entry), message: ILL_FORMED_MESSAGE };
    } else if (Array.isArray(value)) {
      for (let index = value.length - 1; index >= 0; index -= 1) pending.push({ value: value[index], key: index, parent: entry });
    } else if (typeof value === "object" && value !== null) {
      const entries = Object.entries(value);
      if (entries.some(([key]) => !key.isWellFormed())) {
        return { path: pathOf(entry), message: "a field name contains an unpaired UTF-16 surrogate" };
      }
      for (let index = entries.length - 1; index >= 0; index -= 1) {
        const [key, child] = entries[index]!;
        pending.push({ value: child, key, parent: entry });
      }
    }
  }
  return null;
}

const ILL_FORMED_MESSAGE = "must be well-formed Unicode text (it contains an unpaired UTF-16 surrogate)";
