/**
 * The layer table of Tally, as rules `npm run check:layers` enforces (it runs in `npm test`).
 * Each rule below is one row: what a layer may not import. Read top-down, the layers are:
 *
 * | layer     | folder                | may import                                                    |
 * |-----------|-----------------------|---------------------------------------------------------------|
 * | domain    | lambdas/domain        | domain only; no AWS SDK, no I/O built-ins (fs, net, http...)  |
 * | logging   | lambdas/logging       | nothing of Tally's (a domain-free module anyone may use)      |
 * | contract  | lambdas/contract      | domain: plain data shared by the Lambdas and the CDK app      |
 * | ports     | lambdas/ports         | domain: interfaces, their types, the errors callers catch     |
 * | store     | lambdas/store         | ports, domain, contract, logging, the AWS SDK's clients:      |
 * |           |                       | storage adapters                                              |
 * | adapters  | lambdas/adapters      | ports, domain, contract, logging, store: adapters that store  |
 * |           |                       | nothing (geolocation, rate-limit registry, results queries)   |
 * | services  | lambdas/services      | ports, domain, logging                                        |
 * | http      | lambdas/http          | domain, contract, logging                                     |
 * | handlers  | lambdas/handlers      | services, ports, domain, contract, http, logging, the route   |
 * |           |                       | manifest (lambdas/routes.ts) and the Deps type (lambdas/deps) |
 * | entry     | lambdas/entry         | everything                                                    |
 * | local     | lambdas/local         | everything but entry                                          |
 * | lib (CDK) | lib                   | the route manifest, the Lambda variables (lambda-env.ts),     |
 * |           |                       | domain, contract, store/schema.ts (table layouts): plain data |
 * |           |                       | only, never handlers/, http/ or adapters                      |
 * | dashboard | dashboard/src         | dashboard/src, lambdas/contract/dashboard.ts, pure            |
 * |           |                       | lambdas/domain modules, preact, uplot, papaparse: it runs in  |
 * |           |                       | a browser                                                     |
 *
 * The Trino grammar the tests check Athena's SQL with (dt-sql-parser) is imported by tests only.
 *
 * AWS is reached through the AWS SDK's clients only, which sign requests, resolve endpoints and
 * credentials and retry (docs/decisions/ingestion-cold-start.md): no module under lambdas/ signs a
 * request itself (with a signer package; test/layers/layers.test.ts also looks for SigV4 written by
 * hand) or opens its own HTTP connections, except lambdas/store/aws-sdk-config.ts (the agents it hands
 * the SDK's request handler) and the local server (lambdas/local).
 *
 * A module that breaks a row fails the check with the rule's name. To see it fail:
 * test/layers/layers.test.ts runs the checker on a fixture with a wrong-way import.
 */
const tally = (layer) => `^lambdas/${layer}/`;
const IO_BUILTINS = '^(node:)?(fs|fs/promises|net|http|https|http2|child_process|dgram|dns|tls|worker_threads|cluster)$';

module.exports = {
  forbidden: [
    {
      name: 'domain-imports-only-domain',
      comment: 'domain: the spec rules; nothing of Tally outside domain/',
      severity: 'error',
      from: { path: tally('domain') },
      to: { path: '^lambdas/', pathNot: tally('domain') },
    },
    {
      name: 'domain-does-no-io',
      comment: 'domain: no AWS SDK, database or I/O built-in; pure functions and types',
      severity: 'error',
      from: { path: tally('domain') },
      to: { path: [IO_BUILTINS, '^@aws-sdk/', '^@duckdb/', '^maxmind', '^aws-cdk-lib', '^dynalite'] },
    },
    {
      name: 'logging-imports-nothing-of-tally',
      comment: 'logging: a domain-free module every layer may use',
      severity: 'error',
      from: { path: tally('logging') },
      to: { path: '^(lambdas|lib|bin)/', pathNot: tally('logging') },
    },
    {
      name: 'contract-imports-only-domain',
      comment: 'contract: plain data shared by the Lambdas and the CDK app',
      severity: 'error',
      from: { path: tally('contract') },
      to: { path: '^(lambdas|lib|bin)/', pathNot: [tally('contract'), tally('domain')] },
    },
    {
      name: 'ports-import-only-domain',
      comment: 'ports: interfaces, their types and errors; implementations import them, never the reverse',
      severity: 'error',
      from: { path: tally('ports') },
      to: { path: '^(lambdas|lib|bin)/', pathNot: [tally('ports'), tally('domain')] },
    },
    {
      name: 'aws-through-the-sdk-no-own-http',
      comment:
        'AWS calls go through the SDK clients (signing, retries, timeouts): no HTTP connections of our own under lambdas/, but the SDK configuration and the local server',
      severity: 'error',
      from: { path: '^lambdas/', pathNot: ['^lambdas/local/', '^lambdas/store/aws-sdk-config\\.ts$'] },
      to: { path: '^(node:)?(http|https|http2|tls)$' },
    },
    {
      name: 'aws-through-the-sdk-no-own-signing',
      comment:
        'requests are signed by the SDK clients, never by hand: no signer package under lambdas/ (test/layers/layers.test.ts also looks for SigV4 by hand)',
      severity: 'error',
      from: { path: '^lambdas/' },
      to: {
        path: [
          '(^|/)node_modules/@smithy/signature-v4/',
          '^@smithy/signature-v4$',
          '(^|/)node_modules/@aws-sdk/signature-v4[^/]*/',
          '^@aws-sdk/signature-v4',
          '(^|/)node_modules/@aws-crypto/',
          '^@aws-crypto/',
        ],
      },
    },
    {
      name: 'store-implements-ports',
      comment: 'store: storage adapters import ports, domain, contract, logging (and the AWS SDK)',
      severity: 'error',
      from: { path: tally('store') },
      to: {
        path: '^(lambdas|lib|bin)/',
        pathNot: [tally('store'), tally('ports'), tally('domain'), tally('contract'), tally('logging')],
      },
    },
    {
      name: 'adapters-implement-ports',
      comment: 'adapters: the other adapters import ports, domain, contract, logging and store helpers',
      severity: 'error',
      from: { path: tally('adapters') },
      to: {
        path: '^(lambdas|lib|bin)/',
        pathNot: [tally('adapters'), tally('store'), tally('ports'), tally('domain'), tally('contract'), tally('logging')],
      },
    },
    {
      name: 'services-use-ports',
      comment: 'services: depend on ports and domain, never on an adapter or on HTTP',
      severity: 'error',
      from: { path: tally('services') },
      to: { path: '^(lambdas|lib|bin)/', pathNot: [tally('services'), tally('ports'), tally('domain'), tally('logging')] },
    },
    {
      name: 'http-is-transport-only',
      comment: 'http: request and response helpers over domain and contract',
      severity: 'error',
      from: { path: tally('http') },
      to: { path: '^(lambdas|lib|bin)/', pathNot: [tally('http'), tally('domain'), tally('contract'), tally('logging')] },
    },
    {
      name: 'handlers-use-services-and-ports',
      comment: 'handlers: services, ports, domain, contract, http; adapters are wired in by entry/ and local/',
      severity: 'error',
      from: { path: tally('handlers') },
      to: {
        path: '^(lambdas|lib|bin)/',
        pathNot: [
          tally('handlers'),
          tally('services'),
          tally('ports'),
          tally('domain'),
          tally('contract'),
          tally('http'),
          tally('logging'),
          '^lambdas/routes\\.ts$',
          '^lambdas/deps\\.ts$',
        ],
      },
    },
    {
      name: 'local-never-imports-entry',
      comment: 'local: the local server wires everything but the AWS entry points',
      severity: 'error',
      from: { path: tally('local') },
      to: { path: [tally('entry'), '^lib/', '^bin/'] },
    },
    {
      name: 'lambdas-never-import-the-stack',
      comment: 'nothing under lambdas/ imports the CDK app or the scripts',
      severity: 'error',
      from: { path: '^lambdas/' },
      to: { path: ['^lib/', '^bin/'] },
    },
    {
      name: 'lib-imports-plain-data',
      comment: 'lib (CDK): the route manifest, the Lambda variables, domain, contract and table layouts only',
      severity: 'error',
      from: { path: '^lib/' },
      to: {
        path: '^lambdas/',
        pathNot: ['^lambdas/routes\\.ts$', '^lambdas/lambda-env\\.ts$', tally('domain'), tally('contract'), '^lambdas/store/schema\\.ts$'],
      },
    },
    {
      name: 'dashboard-is-a-browser-app',
      comment:
        'dashboard/src: the browser app; its own modules, the dashboard contract, pure domain rules, preact, uplot, papaparse (CSV) and oidc-client-ts (sign-in, with its jwt-decode) only',
      severity: 'error',
      from: { path: '^dashboard/src/' },
      to: {
        pathNot: [
          '^dashboard/src/',
          '^lambdas/contract/dashboard\\.ts$',
          tally('domain'),
          '(^|/)node_modules/(preact|uplot|papaparse|oidc-client-ts|jwt-decode)/',
        ],
      },
    },
    {
      name: 'grammar-check-is-test-only',
      comment: 'dt-sql-parser (the Trino grammar, test/helpers/trino-grammar.ts) is a devDependency for the tests: no Lambda, script or page imports it',
      severity: 'error',
      from: { path: '^(lambdas|lib|bin|dashboard)/' },
      to: { path: '(^|/)node_modules/dt-sql-parser/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: { extensions: ['.ts', '.tsx', '.js', '.json'] },
    exclude: { path: ['\\.d\\.ts$', '^dashboard/dist/'] },
  },
};
