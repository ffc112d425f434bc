/**
 * The analyst views' CloudFormation custom resource (lambdas/handlers/analytics-views.ts): what it
 * does per request type, and the response object it uploads to the presigned URL, on success and
 * on failure (a failed deploy, never a silent one; a failed create's rollback never touches Athena).
 */
import type { CloudFormationCustomResourceEvent } from 'aws-lambda';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { AthenaAnalyticsViews } from '../../lambdas/adapters/athena-analytics-views';
import { createAnalyticsViewsHandler, VIEWS_PHYSICAL_ID } from '../../lambdas/handlers/analytics-views';

const base = {
  ServiceToken: 'arn:aws:lambda:eu-west-1:123456789012:function:views',
  ResponseURL: 'https://cloudformation-custom-resource-response.s3.amazonaws.com/presigned',
  StackId: 'arn:aws:cloudformation:eu-west-1:123456789012:stack/Tally/1',
  RequestId: 'req-1',
  LogicalResourceId: 'AnalyticsViews',
  ResourceType: 'Custom::AnalyticsViews',
  ResourceProperties: { ServiceToken: 'arn', Database: 'tally', CodeKey: 'abc.zip' },
};
const create = { ...base, RequestType: 'Create' } as CloudFormationCustomResourceEvent;
const update = {
  ...base,
  RequestType: 'Update',
  PhysicalResourceId: VIEWS_PHYSICAL_ID,
  OldResourceProperties: base.ResourceProperties,
} as CloudFormationCustomResourceEvent;
const del = (physicalId: string) => ({ ...base, RequestType: 'Delete', PhysicalResourceId: physicalId }) as CloudFormationCustomResourceEvent;

function harness(fail?: 'create' | 'drop') {
  const calls: string[] = [];
  const responses: Array<{ url: string; body: Record<string, unknown> }> = [];
  const handler = createAnalyticsViewsHandler(
    {
      analyticsViews: {
        create: async () => {
          calls.push('create');
          if (fail === 'create') throw new Error('Athena query failed: line 1:8: mismatched input');
        },
        drop: async () => {
          calls.push('drop');
          if (fail === 'drop') throw new Error('Athena query failed: access denied');
        },
      },
    },
    async (url, body) => {
      expect(Buffer.byteLength(body)).toBeLessThanOrEqual(4096);
      responses.push({ url, body: JSON.parse(body) });
    },
  );
  return { handler, calls, responses };
}

const echoed = { StackId: base.StackId, RequestId: base.RequestId, LogicalResourceId: base.LogicalResourceId };

describe('analytics-views custom resource', () => {
  it('creates the views on Create and Update, drops them on Delete, and answers SUCCESS with one physical ID', async () => {
    const h = harness();
    await h.handler(create);
    await h.handler(update);
    await h.handler(del(VIEWS_PHYSICAL_ID));
    expect(h.calls).toEqual(['create', 'create', 'drop']);
    expect(h.responses).toEqual(
      [1, 2, 3].map(() => ({ url: base.ResponseURL, body: { Status: 'SUCCESS', PhysicalResourceId: VIEWS_PHYSICAL_ID, ...echoed } })),
    );
  });

  it('answers FAILED with the reason when Athena refuses the view, and the rollback’s Delete of it succeeds without Athena', async () => {
    const h = harness('create');
    await h.handler(create);
    const failed = h.responses[0]!.body;
    expect(failed).toMatchObject({ Status: 'FAILED', ...echoed });
    expect(failed.Reason).toBe('Create of the analyst views failed: Athena query failed: line 1:8: mismatched input');
    expect(failed.PhysicalResourceId).not.toBe(VIEWS_PHYSICAL_ID);
    await h.handler(del(failed.PhysicalResourceId as string));
    expect(h.calls).toEqual(['create']);
    expect(h.responses[1]!.body).toMatchObject({ Status: 'SUCCESS', PhysicalResourceId: failed.PhysicalResourceId });
  });

  it('answers FAILED on a failed Update, keeping the physical ID (no replacement)', async () => {
    const u = harness('create');
    await u.handler(update);
    expect(u.responses[0]!.body).toMatchObject({ Status: 'FAILED', PhysicalResourceId: VIEWS_PHYSICAL_ID });
  });

  it('answers SUCCESS on a Delete whose DROP VIEW fails, so a rollback or a stack deletion is never stuck on the views', async () => {
    const d = harness('drop');
    await d.handler(del(VIEWS_PHYSICAL_ID));
    expect(d.calls).toEqual(['drop']);
    expect(d.responses[0]!.body).toEqual({ Status: 'SUCCESS', PhysicalResourceId: VIEWS_PHYSICAL_ID, ...echoed });
  });
});

describe('the response upload', () => {
  it('PUTs the response object to the presigned URL with no content type, and fails loudly when the upload is refused', async () => {
    const received: Array<{ method?: string; contentType?: string; body: string }> = [];
    let status = 200;
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        received.push({ method: req.method, contentType: req.headers['content-type'], body });
        res.writeHead(status).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/presigned?X-Amz-Signature=x`;
      const handler = createAnalyticsViewsHandler({ analyticsViews: { create: async () => undefined, drop: async () => undefined } });
      await handler({ ...create, ResponseURL: url });
      expect(received).toHaveLength(1);
      expect(received[0]).toMatchObject({ method: 'PUT', contentType: '' });
      expect(JSON.parse(received[0]!.body)).toEqual({ Status: 'SUCCESS', PhysicalResourceId: VIEWS_PHYSICAL_ID, ...echoed });
      status = 403;
      await expect(handler({ ...create, ResponseURL: url })).rejects.toThrow(/uploading the response to CloudFormation failed: HTTP 403/);
    } finally {
      server.close();
    }
  });
});

describe('AthenaAnalyticsViews', () => {
  it("creates or replaces the readers' views over the landing and curated tables, each stream bounded by its compaction state (read, not reset), and drops them", async () => {
    const sent: string[] = [];
    const read: string[] = [];
    const views = new AthenaAnalyticsViews(
      {
        run: async (sql: string) => {
          sent.push(sql);
          return { rows: [], execution: {} };
        },
      },
      { database: 'tally_staging', maxWaitMs: 60_000 },
      { remove: async () => 0 },
      async (stream) => {
        read.push(stream);
        return { compactedThrough: stream === 'events' ? '2026-03-20-10' : undefined, retiring: [] };
      },
    );
    await views.create();
    expect(read.sort()).toEqual(['events', 'identities']);
    expect(sent.map((t) => t.split('\n')[0])).toEqual([
      'CREATE OR REPLACE VIEW tally_staging.events AS',
      'CREATE OR REPLACE VIEW tally_staging.identities AS',
      'CREATE OR REPLACE VIEW tally_staging.events_tail AS',
      'CREATE OR REPLACE VIEW tally_staging.unique_events AS',
      'CREATE OR REPLACE VIEW tally_staging.events_by_arrival AS',
    ]);
    // The events view: curated partitions plus the landing hours after the compacted one.
    expect(sent[0]).toContain('tally_staging.curated_events');
    expect(sent[0]).toContain('tally_staging.landing_events');
    expect(sent[0]).toContain("'2026-03-20-10'");
    // Identities never compacted: every landing hour is in the tail.
    expect(sent[1]).toContain("'0000-00-00-00'");
    // The events view's landing tail alone, bounded by the same hour.
    expect(sent[2]).toContain('tally_staging.landing_events');
    expect(sent[2]).toContain("'2026-03-20-10'");
    // The events view holds each event once: unique_events is its rows under the older name.
    expect(sent[3]).toMatch(/\nFROM tally_staging\.events$/);
    expect(sent[3]).not.toContain('copy_rank');
    expect(sent[4]).toContain('tally_staging.landing_events');
    sent.length = 0;
    await views.drop();
    expect(sent).toEqual([
      'DROP VIEW IF EXISTS tally_staging.events_by_arrival',
      'DROP VIEW IF EXISTS tally_staging.unique_events',
      'DROP VIEW IF EXISTS tally_staging.events_tail',
      'DROP VIEW IF EXISTS tally_staging.identities',
      'DROP VIEW IF EXISTS tally_staging.events',
    ]);
  });
});
