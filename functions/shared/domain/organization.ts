import * as z from "../platform/zod.ts";

export interface OrganizationRecord {
  id: string;
  name: string;
  createdAt: string;
  /** Value of the organization's API Gateway usage-plan key; the authorizer returns it so throttling is per organization. */
  usageKey: string;
}

export interface ApiKeyRecord {
  keyId: string;
  keyHash: string;
  keyPreview: string;
  label: string;
  organizationId: string;
  usageKey: string;
  createdAt: string;
}

/*
 * Organizations and their API keys as stored, checked on every read (see domain/records.ts). Both
 * have been written with these fields since the first version. Only zod factories here.
 */

export const organizationRecordSchema = z.looseObject({
  id: z.string(),
  name: z.string(),
  createdAt: z.string(),
  usageKey: z.string(),
}) satisfies z.ZodMiniType<OrganizationRecord>;

export const apiKeyRecordSchema = z.looseObject({
  keyId: z.string(),
  keyHash: z.string(),
  keyPreview: z.string(),
  label: z.string(),
  organizationId: z.string(),
  usageKey: z.string(),
  createdAt: z.string(),
}) satisfies z.ZodMiniType<ApiKeyRecord>;
