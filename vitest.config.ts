import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'sdk/test/**/*.test.ts'],
    // dynalite, the local server and CDK synthesis all start in-process; give slow CI cores room.
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Handlers log one JSON line per request; tests assert on responses, not on logs.
    // AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: the SDK's Node 22 notice (bin/node-version.ts).
    env: { TALLY_LOG_LEVEL: 'silent', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
  },
});
