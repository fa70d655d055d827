import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { HOSTED_PAGE_SCRIPT, SIGN_IN_SCRIPT } from "../../functions/shared/http/hosted/scripts.generated.ts";
import { HOSTED_SCRIPTS_FILE, renderHostedScriptsModule } from "../../lib/hosted-scripts.ts";

describe("the hosted pages' bundled browser scripts", () => {
  it("are what the TypeScript in hosted/browser/ bundles to (run `npm run hosted-scripts` after changing it)", async () => {
    expect(readFileSync(HOSTED_SCRIPTS_FILE, "utf8")).toBe(await renderHostedScriptsModule());
  });

  it("can be inlined in a <script> element: nothing in them closes it", () => {
    for (const script of [HOSTED_PAGE_SCRIPT, SIGN_IN_SCRIPT]) {
      expect(script.length).toBeGreaterThan(0);
      expect(script.toLowerCase()).not.toContain("</script");
      expect(script.toLowerCase()).not.toContain("<!--");
    }
  });
});
