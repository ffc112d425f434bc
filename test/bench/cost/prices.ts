/**
 * On-demand list prices, us-east-1, each with where it was read and when. The pages were read through
 * a store of public web pages (copies, not the live site), so a copy may be older than the read date;
 * re-check against the AWS pricing pages before quoting these figures elsewhere.
 * "assumed" marks a price the stored pages did not show (AWS renders its rate tables in the browser,
 * so the stored copies of its own pricing pages carry the billing rules but often not the numbers).
 */
export const PRICES_READ_ON = '2026-11-22';

export interface Price {
  usd: number;
  per: string;
  source: string;
  /** Why the figure is assumed, when it is. */
  assumed?: string;
}

export const PRICES = {
  apiGatewayRest: {
    usd: 3.5,
    per: 'million REST API requests (first 333 million a month)',
    source: 'https://docs.aws.amazon.com/whitepapers/latest/best-practices-api-gateway-private-apis-integration/cost-optimization.html (Table 4, REST)',
  },
  lambdaRequests: {
    usd: 0.2,
    per: 'million Lambda requests',
    source:
      'https://git.mcrn.ar/mariano/lambda_local_runner (docs/lambdas-md/lambda-13-cost.md, arm64 and x86_64 alike); same figure in cloudchipr.com/blog/aws-lambda-pricing',
  },
  lambdaArmGbSecond: {
    usd: 0.0000133334,
    per: 'GB-second, Arm (first 7.5 billion GB-s a month)',
    source: 'https://cloudchipr.com/blog/aws-lambda-pricing (US East, ARM pricing); artillery lib/platform/aws-lambda/prices.js has the same arm64 base rate',
  },
  dynamoWru: {
    usd: 0.625,
    per: 'million write request units (on-demand, Standard table class)',
    source:
      'https://airbyte.com/data-engineering-resources/dynamodb-pricing ("Pricing Structure (US East Region)"); unit rules from https://aws.amazon.com/dynamodb/pricing/on-demand/',
  },
  dynamoRru: {
    usd: 0.125,
    per: 'million read request units (on-demand, Standard table class)',
    source: 'https://airbyte.com/data-engineering-resources/dynamodb-pricing ("Pricing Structure (US East Region)")',
  },
  firehoseIngestGb: {
    usd: 0.029,
    per: 'GB ingested, Direct PUT, records rounded up to 5 KB (first 500 TB a month)',
    source: '5 KB rounding: https://aws.amazon.com/de/kinesis/data-firehose/pricing/ (stored copy, German)',
    assumed: 'the stored pricing pages show the 5 KB rule but not the rate; $0.029 is the figure the README used',
  },
  athenaTb: {
    usd: 5,
    per: "TB scanned by Athena SQL queries (the compaction job's INSERT INTO and partitions query)",
    source: 'https://aws.amazon.com/athena/pricing/',
  },
  s3Put: {
    usd: 0.005,
    per: '1,000 PUT requests, S3 Standard',
    source: 'https://c3x.dev/blog/s3-request-fees-explained (S3 Standard Tier 1 requests)',
  },
  logsIngestGb: {
    usd: 0.5,
    per: 'GB of CloudWatch Logs ingested, Standard class (Lambda logs: first tier)',
    source: 'https://hykell.com/kb/platform-specific-guides/aws-cloudwatch-logs-pricing (us-east-1); Lambda tiers: https://www.duckbillgroup.com/?p=9080',
  },
} satisfies Record<string, Price>;

/** AWS bills data in GB of 2^30 bytes. */
export const GB = 1024 ** 3;
