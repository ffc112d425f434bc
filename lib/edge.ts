/**
 * Optional CloudFront in front of the API, for viewer geolocation headers (CloudFront-Viewer-*).
 * CloudFront adds a secret header to every origin request; the authorizer compares it with the
 * secret (Secrets Manager) and only then marks the request via_cloudfront, so a client calling the
 * execute-api URL directly cannot forge CloudFront-Viewer-* headers.
 */
import { Validations } from 'aws-cdk-lib';
import { AllowedMethods, CachePolicy, Distribution, HttpVersion, OriginRequestPolicy, PriceClass, ViewerProtocolPolicy } from 'aws-cdk-lib/aws-cloudfront';
import { RestApiOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import type { RestApi } from 'aws-cdk-lib/aws-apigateway';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { ORIGIN_VERIFY_HEADER } from '../lambdas/contract/gateway';

export interface EdgeProps {
  api: RestApi;
  priceClass: PriceClass;
}

export class Edge extends Construct {
  readonly distribution: Distribution;
  readonly originSecret: Secret;

  constructor(scope: Construct, id: string, props: EdgeProps) {
    super(scope, id);
    this.originSecret = new Secret(this, 'OriginSecret', {
      description: `Value of the ${ORIGIN_VERIFY_HEADER} header CloudFront sends to the Tally API`,
      generateSecretString: { passwordLength: 48, excludePunctuation: true },
    });
    Validations.of(this.originSecret).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason: 'Rotation would need CloudFront and the authorizer updated together; rotate by redeploying after put-secret-value (docs/deploy.md).',
    });

    this.distribution = new Distribution(this, 'Distribution', {
      comment: 'Tally API with viewer geolocation headers',
      httpVersion: HttpVersion.HTTP2_AND_3,
      priceClass: props.priceClass,
      defaultBehavior: {
        origin: new RestApiOrigin(props.api, {
          // A CloudFormation dynamic reference: the value is resolved at deploy time, not stored in the template.
          customHeaders: { [ORIGIN_VERIFY_HEADER]: this.originSecret.secretValue.unsafeUnwrap() },
        }),
        viewerProtocolPolicy: ViewerProtocolPolicy.HTTPS_ONLY,
        allowedMethods: AllowedMethods.ALLOW_ALL,
        cachePolicy: CachePolicy.CACHING_DISABLED,
        // Everything but Host (API Gateway answers 403 to a foreign Host), CloudFront-Viewer-* included.
        originRequestPolicy: OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
      },
    });
    Validations.of(this.distribution).acknowledge(
      { id: 'AwsSolutions-CFR1', reason: 'Analytics is collected worldwide; no geo restriction.' },
      { id: 'AwsSolutions-CFR2', reason: 'WAF is optional and billed per rule and request; the authorizer and usage plans guard the API.' },
      { id: 'AwsSolutions-CFR3', reason: 'API Gateway access logs already record every request that reaches the API.' },
      { id: 'AwsSolutions-CFR4', reason: 'The default *.cloudfront.net certificate fixes the minimum TLS version; use a custom domain to raise it.' },
    );
  }
}
