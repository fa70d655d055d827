import { parseArgs } from "node:util";
import {
  APIGatewayClient,
  ConflictException,
  CreateApiKeyCommand,
  CreateUsagePlanKeyCommand,
  GetApiKeysCommand,
} from "@aws-sdk/client-api-gateway";
import {
  type ApiKeyRecord,
  ensureOrganization,
  findOrganizationByName,
  issueApiKey,
  listApiKeys,
  listOrganizations,
  type OrganizationRecord,
  revokeApiKey,
} from "../functions/shared/db/organizations.ts";
import { ENV } from "../functions/shared/platform/env-names.ts";
import { useRunningLocalStack } from "./local-target.ts";
import { runWhenMain } from "./cli.ts";

const USAGE = `Usage: npm run keys -- <command> [options]

Commands:
  create --org NAME [--label LABEL]   issue a key (creating the organization if needed); the key is shown once
  list [--org NAME]                   list organizations and their keys (never the keys themselves)
  revoke KEY_ID                       revoke a key by its id (key_...)

Target (default: the running local stack started by npm run dev):
  --table NAME          a deployed stack's table (uses your AWS credentials and region)
  --usage-plan-id ID    with --table: also register the organization in the API's usage plan
                        (required once per organization for requests to pass API Gateway)
  --region REGION`;


interface Target {
  usagePlanId?: string;
  region?: string;
}

/** Points the data layer at a deployed table, or at the running local stack, through the same env Lambda uses. */
function selectTarget(values: { table?: string; region?: string; "usage-plan-id"?: string }): Target {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = "true";
  if (!values.table) {
    useRunningLocalStack();
    return {};
  }
  process.env[ENV.tableName] = values.table;
  if (values.region) process.env.AWS_REGION = values.region;
  return { usagePlanId: values["usage-plan-id"], region: values.region };
}

/** API Gateway throttles per organization only for usage identifiers that are keys of the usage plan. */
async function registerUsageKey(organization: OrganizationRecord, target: Target): Promise<void> {
  if (!target.usagePlanId) return;
  const client = new APIGatewayClient({ region: target.region });
  const name = `kis-${organization.id}`;
  let keyId: string | undefined;
  try {
    keyId = (await client.send(new CreateApiKeyCommand({ name, value: organization.usageKey, enabled: true }))).id;
  } catch (error) {
    if (!(error instanceof ConflictException)) throw error;
  }
  keyId ??= (await client.send(new GetApiKeysCommand({ nameQuery: name }))).items?.find((item) => item.name === name)?.id;
  if (!keyId) throw new Error(`could not find the API Gateway key ${name}`);
  try {
    await client.send(new CreateUsagePlanKeyCommand({ usagePlanId: target.usagePlanId, keyId, keyType: "API_KEY" }));
  } catch (error) {
    if (!(error instanceof ConflictException)) throw error;
  }
}

function describeKey(key: ApiKeyRecord): string {
  return `  ${key.keyId}  ${key.keyPreview}  ${key.label}  created ${key.createdAt}`;
}

export async function run(argv: string[], print: (line: string) => void = console.log): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      org: { type: "string" },
      label: { type: "string" },
      table: { type: "string" },
      region: { type: "string" },
      "usage-plan-id": { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  const [command, argument] = positionals;
  if (values.help || !command) {
    print(USAGE);
    return command ? 0 : 2;
  }
  const target = selectTarget(values);
  switch (command) {
    case "create": {
      if (!values.org) throw new Error("create needs --org NAME");
      const { organization, created } = await ensureOrganization(values.org);
      await registerUsageKey(organization, target);
      const { key, record } = await issueApiKey(organization, values.label ?? "default");
      print(`${created ? "Created" : "Using"} organization ${organization.name} (${organization.id})`);
      print(`Key id: ${record.keyId}`);
      print(`API key (shown once, store it now): ${key}`);
      return 0;
    }
    case "list": {
      const organizations = values.org
        ? [await findOrganizationByName(values.org)].filter((found): found is OrganizationRecord => found !== null)
        : await listOrganizations();
      for (const organization of organizations) {
        print(`${organization.name} (${organization.id})`);
        for (const key of await listApiKeys(organization.id)) print(describeKey(key));
      }
      return 0;
    }
    case "revoke": {
      if (!argument) throw new Error("revoke needs a key id (key_...)");
      const revoked = await revokeApiKey(argument);
      if (!revoked) {
        print(`No key with id ${argument}.`);
        return 1;
      }
      print(`Revoked ${revoked.keyId} (${revoked.keyPreview}) of ${revoked.organizationId}.`);
      return 0;
    }
    default:
      print(USAGE);
      return 2;
  }
}

runWhenMain(import.meta.url, run);
