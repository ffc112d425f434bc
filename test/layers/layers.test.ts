/**
 * The layer rules (.dependency-cruiser.cjs) catch a wrong-way import: run the checker on a fixture
 * whose port imports its implementation, whose domain module reads a file, and whose store reaches
 * DynamoDB and Firehose through the SDK's clients instead of lambdas/aws-client.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const DEPCRUISE = join(ROOT, 'node_modules', '.bin', 'depcruise');
const CONFIG = join(ROOT, '.dependency-cruiser.cjs');

async function cruise(cwd: string, paths: string[]): Promise<{ code: number; output: string }> {
  try {
    const { stdout } = await promisify(execFile)(DEPCRUISE, [...paths, '--config', CONFIG, '--output-type', 'err'], { cwd });
    return { code: 0, output: stdout };
  } catch (err) {
    const failed = err as { code: number; stdout: string };
    return { code: failed.code, output: failed.stdout };
  }
}

describe('layer rules', () => {
  it("fail on a port importing its implementation, on domain I/O and on the SDK's DynamoDB and Firehose clients", async () => {
    const { code, output } = await cruise(join(import.meta.dirname, 'fixture'), ['lambdas']);
    expect(code).not.toBe(0);
    expect(output).toContain('ports-import-only-domain: lambdas/ports/widget-store.ts → lambdas/store/widget-store.ts');
    expect(output).toContain('domain-does-no-io: lambdas/domain/widget.ts → fs');
    expect(output).toMatch(/lambdas-use-the-small-aws-client: lambdas\/store\/sdk-widget-store\.ts → \S*node_modules\/@aws-sdk\/client-dynamodb\//);
    expect(output).toMatch(/lambdas-use-the-small-aws-client: lambdas\/store\/sdk-widget-store\.ts → \S*node_modules\/@aws-sdk\/client-firehose\//);
    expect(output).toContain('4 dependency violations');
  });

  it('pass on the code base', async () => {
    const { code, output } = await cruise(ROOT, ['lambdas', 'lib', 'bin']);
    expect(output).toContain('no dependency violations found');
    expect(code).toBe(0);
  });
});
