/* The authorizer's one read: an API key to its organization (entry points reach the table through workflows). */
export { resolveApiKey } from "../db/organizations.ts";
