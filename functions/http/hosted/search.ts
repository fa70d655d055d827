import { hostedSearchBody, hostedSlugPath } from "../../shared/domain/hosted-page.ts";
import { HttpError } from "../../shared/http/error-mapping.ts";
import { httpHandler, ok } from "../../shared/http/handler.ts";
import { sessionCookieOf, visitorAddress } from "../../shared/http/hosted-request.ts";
import { assertAdmitted, countVisit, publishedPage } from "../../shared/workflows/hosted.ts";
import { searchPublishedPage } from "../../shared/workflows/hosted-search.ts";

/** The search tab of a hosted page: untenanted records only, limited per visitor and per page. */
export const handler = httpHandler({ public: true, path: hostedSlugPath, body: hostedSearchBody }, async ({ path, body, event }) => {
  const page = await publishedPage(path.slug);
  await assertAdmitted(page, sessionCookieOf(event));
  const visit = await countVisit(path.slug, visitorAddress(event), "search");
  if (!visit.allowed) {
    throw new HttpError("rate_limit_exceeded", "Too many searches on this page; try again shortly.", { "retry-after": String(visit.retryAfterSeconds) });
  }
  return ok(await searchPublishedPage(page, body.query));
});
