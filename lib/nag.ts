import { Stack, Validations } from "aws-cdk-lib";
import type { IConstruct } from "constructs";
// Not part of cdk-nag's index, but it is the function that names IAM5 findings; using it keeps our
// acknowledgement ids identical to the findings of the installed cdk-nag version.
import { flattenCfnReference } from "cdk-nag/lib/utils/flatten-cfn-reference.js";

/**
 * cdk-nag 3 acknowledges each IAM5 wildcard finding separately, by an id that contains the resource
 * as cdk-nag prints it (`<Logical.Attr>/index/*`). These helpers compute that id from the same
 * value the grant used, so an acknowledgement can't silently drift from the grant it excuses.
 */
export function acknowledgeWildcardResource(scope: IConstruct, resource: string, reason: string): void {
  const flat = flattenCfnReference(Stack.of(scope).resolve(resource));
  Validations.of(scope).acknowledge({ id: `AwsSolutions-IAM5[Resource::${flat}]`, reason });
}

export function acknowledgeWildcardActions(scope: IConstruct, actions: string[], reason: string): void {
  for (const action of actions) {
    Validations.of(scope).acknowledge({ id: `AwsSolutions-IAM5[Action::${action}]`, reason });
  }
}
