/**
 * The signer against the AWS SDK's own SignatureV4 (@smithy/signature-v4, the version the SDK clients in
 * package-lock.json use), byte for byte: the headers our JSON client sends, signed by both. A difference
 * here is a 403 on every DynamoDB and Firehose call on AWS, which no local test would otherwise notice.
 */
import { SignatureV4 } from '@smithy/signature-v4';
import { Sha256 } from '../helpers/sdk-sha256';
import { describe, expect, it } from 'vitest';
import { canonicalPath, signRequest, type SignableRequest } from '../../lambdas/aws-client/sigv4';
import type { Credentials } from '../../lambdas/aws-client/credentials';

const PERMANENT: Credentials = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' };
const TEMPORARY: Credentials = {
  accessKeyId: 'ASIAEXAMPLE',
  secretAccessKey: 'c2VjcmV0L3dpdGgrc2xhc2hlcz0=',
  sessionToken: 'IQoJb3JpZ2luX2VjEO///////////wEaCWV1LXdlc3QtMSJHMEUCIQ+long/token==',
};
const DATE = new Date('2026-11-22T17:03:21.456Z');

/** The headers the JSON client sends for one call (json-client.ts), before signing. */
function request(service: 'dynamodb' | 'firehose', host: string, target: string, body: string, path = '/'): SignableRequest {
  return {
    method: 'POST',
    path,
    headers: {
      'content-type': service === 'dynamodb' ? 'application/x-amz-json-1.0' : 'application/x-amz-json-1.1',
      'content-length': String(Buffer.byteLength(body)),
      host,
      'x-amz-target': target,
    },
    body,
  };
}

async function sdkSigned(req: SignableRequest, credentials: Credentials, region: string, service: string, date: Date) {
  // Configured as the SDK's DynamoDB and Firehose clients configure it (applyChecksum and uriEscapePath default true).
  const signer = new SignatureV4({ credentials, region, service, sha256: Sha256 as never });
  const [hostname, port] = req.headers.host!.split(':');
  const signed = await signer.sign(
    {
      method: req.method,
      protocol: 'https:',
      hostname: hostname!,
      port: port ? Number(port) : undefined,
      path: req.path,
      query: {},
      headers: { ...req.headers },
      body: req.body,
    } as never,
    { signingDate: date },
  );
  return (signed as unknown as { headers: Record<string, string> }).headers;
}

const CASES: Array<{ name: string; req: SignableRequest; credentials: Credentials; region: string; service: string; date?: Date }> = [
  {
    name: 'DynamoDB PutItem, permanent credentials, eu-west-1',
    req: request('dynamodb', 'dynamodb.eu-west-1.amazonaws.com', 'DynamoDB_20120810.PutItem', '{"TableName":"tally-events","Item":{"pk":{"S":"p#k"}}}'),
    credentials: PERMANENT,
    region: 'eu-west-1',
    service: 'dynamodb',
  },
  {
    name: 'DynamoDB GetItem, session token, us-east-1',
    req: request('dynamodb', 'dynamodb.us-east-1.amazonaws.com', 'DynamoDB_20120810.GetItem', '{"TableName":"t","Key":{"pk":{"S":"x"}},"ConsistentRead":true}'),
    credentials: TEMPORARY,
    region: 'us-east-1',
    service: 'dynamodb',
  },
  {
    name: 'Firehose PutRecordBatch, session token, eu-west-1',
    req: request(
      'firehose',
      'firehose.eu-west-1.amazonaws.com',
      'Firehose_20150804.PutRecordBatch',
      '{"DeliveryStreamName":"tally-events","Records":[{"Data":"eyJhIjoxfQo="}]}',
    ),
    credentials: TEMPORARY,
    region: 'eu-west-1',
    service: 'firehose',
  },
  {
    name: 'Firehose, permanent credentials, cn-north-1',
    req: request('firehose', 'firehose.cn-north-1.amazonaws.com.cn', 'Firehose_20150804.PutRecordBatch', '{"DeliveryStreamName":"s","Records":[]}'),
    credentials: PERMANENT,
    region: 'cn-north-1',
    service: 'firehose',
  },
  {
    name: 'non-ASCII body (UTF-8 length and hash)',
    req: request('dynamodb', 'dynamodb.eu-west-1.amazonaws.com', 'DynamoDB_20120810.PutItem', '{"Item":{"name":{"S":"Zoë 🚀 – naïve 東京"}}}'),
    credentials: TEMPORARY,
    region: 'eu-west-1',
    service: 'dynamodb',
  },
  {
    name: 'a local endpoint with a port, and a path under it',
    req: request('dynamodb', '127.0.0.1:8000', 'DynamoDB_20120810.Query', '{}', '/prefix/./a b/../dynamo/'),
    credentials: PERMANENT,
    region: 'us-east-1',
    service: 'dynamodb',
  },
  {
    name: 'header values with runs of spaces, just after midnight UTC (the date of the scope)',
    req: {
      ...request('dynamodb', 'dynamodb.eu-west-1.amazonaws.com', 'DynamoDB_20120810.PutItem', ''),
      headers: {
        ...request('dynamodb', 'dynamodb.eu-west-1.amazonaws.com', 'DynamoDB_20120810.PutItem', '').headers,
        'x-amz-target': '  DynamoDB_20120810.PutItem   ',
      },
    },
    credentials: PERMANENT,
    region: 'eu-west-1',
    service: 'dynamodb',
    date: new Date('2027-01-01T00:00:00.000Z'),
  },
];

describe('SigV4 signer', () => {
  for (const c of CASES) {
    it(`signs as the AWS SDK does: ${c.name}`, async () => {
      const date = c.date ?? DATE;
      const ours = signRequest(c.req, { credentials: c.credentials, region: c.region, service: c.service, date });
      const sdk = await sdkSigned(c.req, c.credentials, c.region, c.service, date);
      expect(ours).toEqual(sdk);
      // What AWS checks, spelled out, so a change on both sides still shows here.
      expect(ours.authorization).toContain(
        `Credential=${c.credentials.accessKeyId}/${date.toISOString().slice(0, 10).replace(/-/g, '')}/${c.region}/${c.service}/aws4_request, `,
      );
      const signed = c.credentials.sessionToken
        ? 'content-length;content-type;host;x-amz-content-sha256;x-amz-date;x-amz-security-token;x-amz-target'
        : 'content-length;content-type;host;x-amz-content-sha256;x-amz-date;x-amz-target';
      expect(ours.authorization).toContain(`SignedHeaders=${signed}, Signature=`);
      expect(ours.authorization).toMatch(/Signature=[0-9a-f]{64}$/);
      expect(ours['x-amz-security-token']).toBe(c.credentials.sessionToken);
    });
  }

  it('signs differently when anything signed changes (the comparison above can fail)', () => {
    const base = CASES[0]!;
    const sign = (over: Partial<SignableRequest>, region = base.region) =>
      signRequest({ ...base.req, ...over }, { credentials: base.credentials, region, service: base.service, date: DATE }).authorization;
    const original = sign({});
    expect(sign({ body: base.req.body + ' ' })).not.toBe(original);
    expect(sign({ headers: { ...base.req.headers, 'x-amz-target': 'DynamoDB_20120810.GetItem' } })).not.toBe(original);
    expect(sign({}, 'eu-west-2')).not.toBe(original);
    expect(sign({ path: '/x' })).not.toBe(original);
  });

  it('canonicalises the path as the SDK: "/" stays, dot segments resolve, characters are escaped', () => {
    expect(canonicalPath('/')).toBe('/');
    expect(canonicalPath('')).toBe('');
    expect(canonicalPath('/a/./b/../c/')).toBe('/a/c/');
    expect(canonicalPath('/a b')).toBe('/a%20b');
  });
});
