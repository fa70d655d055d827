import { CfnWebACL, CfnWebACLAssociation } from "aws-cdk-lib/aws-wafv2";
import { Construct } from "constructs";
import { WAF_RATE_LIMITS } from "../stage-settings.ts";

export interface ApiWebAclProps {
  /** The ARN of the API stage the web ACL protects. */
  stageArn: string;
}

/** A visibility configuration: every rule's counts go to CloudWatch, and sampled requests to the console. */
const visibility = (metricName: string): CfnWebACL.VisibilityConfigProperty => ({
  cloudWatchMetricsEnabled: true,
  metricName,
  sampledRequestsEnabled: true,
});

/** Matches the public routes: hosted pages (`…/hosted/…`) and the API contract (`…/docs`, `…/openapi.json`). */
const PUBLIC_ROUTES: CfnWebACL.StatementProperty = {
  orStatement: {
    statements: [
      { positionalConstraint: "CONTAINS", searchString: "/hosted/" },
      { positionalConstraint: "ENDS_WITH", searchString: "/docs" },
      { positionalConstraint: "ENDS_WITH", searchString: "/openapi.json" },
    ].map(({ positionalConstraint, searchString }) => ({
      byteMatchStatement: {
        fieldToMatch: { uriPath: {} },
        positionalConstraint,
        searchString,
        textTransformations: [{ priority: 0, type: "NONE" }],
      },
    })),
  },
};

/**
 * The opt-in AWS WAF web ACL of the API stage (`-c waf=true`): per-client rate-based rules, which
 * API Gateway's method throttles (shared by all callers) cannot give. A client over a limit is
 * blocked with a 403 until its rate falls back under it. Costs are in the README ("Limits").
 */
export class ApiWebAcl extends Construct {
  readonly webAcl: CfnWebACL;

  constructor(scope: Construct, id: string, props: ApiWebAclProps) {
    super(scope, id);
    this.webAcl = new CfnWebACL(this, "WebAcl", {
      scope: "REGIONAL",
      defaultAction: { allow: {} },
      visibilityConfig: visibility("KnowledgeIngestionApi"),
      rules: [
        {
          name: "PublicRoutesPerClient",
          priority: 0,
          action: { block: {} },
          statement: {
            rateBasedStatement: {
              aggregateKeyType: "IP",
              evaluationWindowSec: 300,
              limit: WAF_RATE_LIMITS.publicRoutesPerFiveMinutes,
              scopeDownStatement: PUBLIC_ROUTES,
            },
          },
          visibilityConfig: visibility("PublicRoutesPerClient"),
        },
        {
          name: "AllRoutesPerClient",
          priority: 1,
          action: { block: {} },
          statement: { rateBasedStatement: { aggregateKeyType: "IP", evaluationWindowSec: 300, limit: WAF_RATE_LIMITS.allRoutesPerFiveMinutes } },
          visibilityConfig: visibility("AllRoutesPerClient"),
        },
      ],
    });
    new CfnWebACLAssociation(this, "StageAssociation", { resourceArn: props.stageArn, webAclArn: this.webAcl.attrArn });
  }
}
