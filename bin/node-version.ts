/**
 * Supported Node.js versions (docs/decisions/node-versions.md): Tally runs on Node 20 (>= 20.11, the
 * engines field) and Node 22; Lambda runs nodejs22.x. AWS SDK for JavaScript v3 releases published
 * after the first week of January 2027 will need Node 22, and on Node 20 every SDK client prints a
 * multi-line NodeVersionSupportWarning on first use. Tally's own processes (npm start, the CLIs, the
 * tests via vitest.config.ts) import this module first to turn off exactly that warning, through the
 * SDK's own switch; every other warning still prints. Setting the variable yourself wins.
 */
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

export {};
