import { httpHandler, ok } from "../../shared/http/handler.ts";
import * as route from "./search.route.ts";
import { admitVisit } from "../../shared/http/hosted/request.ts";
import { searchPublishedPage } from "../../shared/workflows/hosted/search.ts";

/** The search tab of a hosted page: untenanted records only, limited per visitor and per page. */
export const handler = httpHandler(route.searchHostedPage, async ({ path, body, event }) =>
  ok(await searchPublishedPage(await admitVisit(path.slug, event, "search"), body.query)),
);
