import { getHostingBySlug } from "../db/hosting.ts";
import { getNamespace } from "../db/namespaces.ts";
import { forbidden, notFound } from "../domain/errors.ts";
import type { HostingRecord } from "../domain/hosting.ts";
import type { NamespaceRecord } from "../domain/namespace.ts";

/**
 * The public side of hosting: the page a slug names (its search is in hosted-search.ts). A page exists
 * while its hosting does and its namespace is not being deleted; deleting either, or moving the
 * slug, takes it down at the next request (nothing is cached across requests).
 */
export interface PublishedPage {
  hosting: HostingRecord;
  namespace: NamespaceRecord;
}

export async function publishedPage(slug: string): Promise<PublishedPage> {
  const hosting = await getHostingBySlug(slug);
  const namespace = hosting ? await getNamespace(hosting.namespaceId) : null;
  if (!hosting || !namespace || namespace.status !== "ACTIVE") throw notFound(`No hosted page at ${slug}.`);
  return { hosting, namespace };
}

/**
 * A protected page admits only visitors who proved an allowed e-mail address. The sign-in flow that
 * proves it is not built yet, so a protected page admits nobody: it fails closed.
 */
export function assertOpenToVisitors(page: PublishedPage): void {
  if (page.hosting.protected) {
    throw forbidden("This page is protected: only visitors signed in with an allowed e-mail address may use it, and e-mail sign-in is not available yet.");
  }
}
