/*
 * Namespaces as requests see them. Handlers and the HTTP edge reach the table only through
 * workflows; these requests need nothing beyond the repository's own checks (the organization's
 * ownership, the name's uniqueness, an ACTIVE namespace for changes).
 */
export { createNamespace, listNamespaces, loadNamespaceForOrganization, type NamespaceAccess, updateNamespace } from "../db/namespaces.ts";
