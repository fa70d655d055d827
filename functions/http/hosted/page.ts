import { randomBytes } from "node:crypto";
import { hostedSlugPath } from "../../shared/domain/hosted-page.ts";
import { httpHandler } from "../../shared/http/handler.ts";
import { hostedPageHeaders, renderHostedPage } from "../../shared/http/hosted-page.ts";
import { assertOpenToVisitors, publishedPage } from "../../shared/workflows/hosted.ts";

/** A namespace's hosted page, public: read fresh on every request, so a deleted or moved page is gone at once. */
export const handler = httpHandler({ public: true, path: hostedSlugPath }, async ({ path }) => {
  const page = await publishedPage(path.slug);
  assertOpenToVisitors(page);
  const nonce = randomBytes(16).toString("base64");
  return { status: 200, data: null, raw: renderHostedPage(page.hosting, nonce), headers: hostedPageHeaders(nonce) };
});
