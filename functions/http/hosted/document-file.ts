import { httpHandler } from "../../shared/http/handler.ts";
import * as route from "./document-file.route.ts";
import { admitVisit } from "../../shared/http/hosted/request.ts";
import { pageSourceFileUrl } from "../../shared/workflows/hosted/files.ts";

/**
 * The search tab's link to a hit's source file: a redirect to a presigned GET lasting minutes, for
 * untenanted documents of the page's namespace only. Admitted and counted as a search, so a
 * protected page's files need its session and the page's limits bound how many links are signed.
 */
export const handler = httpHandler(route.getHostedDocumentFile, async ({ path, event }) => {
  const url = await pageSourceFileUrl(await admitVisit(path.slug, event, "search"), path.documentId);
  return { status: 302, data: null, raw: "", headers: { location: url, "content-type": "text/plain; charset=utf-8" } };
});
