/* Hosting settings as the E-routes change them; handlers reach the table only through workflows. */
export { deleteHosting, enableHosting, requireHosting, updateHosting } from "../../db/hosting.ts";
