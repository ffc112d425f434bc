/**
 * cdk-nag's AwsSolutions pack over the whole stack: every finding is fixed or acknowledged next to
 * its resource with a written reason. Synthesizes without bundling (assets are not inspected).
 */
import { Stack, Validations } from 'aws-cdk-lib';
import { Bucket } from 'aws-cdk-lib/aws-s3';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { TallyStack, type TallyStackProps } from '../../lib/tally-stack';
import { testApp } from './synth';

const outdirs: string[] = [];
afterAll(() => outdirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

function nagApp() {
  const outdir = mkdtempSync(join(tmpdir(), 'tally-nag-'));
  outdirs.push(outdir);
  const app = testApp({ outdir });
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  return app;
}

function acknowledgments(root: IConstruct): Array<{ path: string; id: string; reason: string }> {
  return root.node.findAll().flatMap((c) =>
    c.node.metadata
      .filter((m) => m.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
      .flatMap((m) => Object.entries(m.data as Record<string, string>))
      .map(([id, reason]) => ({ path: c.node.path, id, reason })),
  );
}

describe('cdk-nag AwsSolutions', () => {
  const variants: Array<[string, TallyStackProps]> = [
    ['defaults', {}],
    ['CloudFront and alarm e-mail on', { cloudFront: true, alarmEmail: 'ops@example.com' }],
    ['provisioned ledger capacity', { ledgerCapacity: {} }],
    ['no dashboard, deletion protection on, no access logs', { dashboard: false, deletionProtection: true, apiAccessLogs: false }],
  ];

  for (const [label, props] of variants) {
    it(`reports nothing unacknowledged (${label})`, () => {
      const app = nagApp();
      new TallyStack(app, 'Tally', props);
      expect(() => app.synth()).not.toThrow();
    });
  }

  it('every acknowledgment carries a written reason', () => {
    const app = nagApp();
    const stack = new TallyStack(app, 'Tally', { cloudFront: true, alarmEmail: 'ops@example.com' });
    const acks = acknowledgments(stack);
    expect(acks.length).toBeGreaterThan(10);
    for (const a of acks) expect(a.reason.length, `${a.path} ${a.id}`).toBeGreaterThan(30);
  });

  it('does fail on an unacknowledged finding (the check is live)', () => {
    const app = nagApp();
    const stack = new Stack(app, 'Bad');
    new Bucket(stack, 'NoSsl');
    expect(() => app.synth()).toThrow(/AwsSolutions-S1|AwsSolutions-S10/);
  });
});
