import { readFile } from 'node:fs/promises';
import { defineConfig } from 'vitest/config';
import { isSqlFile, textModule } from './lambdas/local/sql-text/hooks.mjs';

export default defineConfig({
  plugins: [
    {
      // .sql imports as text, as in the Lambda bundles and under tsx (lambdas/local/sql-text/hooks.mjs).
      name: 'tally-sql-text',
      enforce: 'pre',
      async load(id) {
        return isSqlFile(id) ? textModule(await readFile(id.split('?')[0]!, 'utf8')) : undefined;
      },
    },
  ],
  test: {
    include: ['test/**/*.test.ts', 'sdk/test/**/*.test.ts'],
    // dynalite, the local server and CDK synthesis all start in-process; give slow CI cores room. With
    // two other processes keeping both cores of the development machine busy, the heaviest end-to-end
    // tests ran 30-50 s: the bounds catch a hang, they do not time the code.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // Handlers log one JSON line per request; tests assert on responses, not on logs.
    // AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: the SDK's Node 22 notice (bin/node-version.ts).
    env: { TALLY_LOG_LEVEL: 'silent', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    // Off unless asked for: `npm run coverage` (vitest run --coverage) writes coverage/ (HTML, lcov, JSON summary).
    coverage: {
      provider: 'v8',
      include: ['lambdas/**/*.ts', 'lib/**/*.ts', 'bin/**/*.ts', 'sdk/src/**/*.ts'],
      reporter: ['text-summary', 'html', 'lcov', 'json-summary'],
      reportsDirectory: 'coverage',
    },
  },
});
