/**
 * Where the raw streams' undeliverable records go and where `npm run redrive` moves them once re-sent:
 * the same keys in the raw bucket (lib/raw-streams.ts: Firehose's error output prefix, the lifecycle
 * rules, the EventBridge rule) and in the local data directory (lambdas/local/firehose-endpoint.ts,
 * bin/redrive/objects.ts). Shared by the Lambdas' local stand-in, the CDK app and the command, hence in contract/.
 */

/** Where Firehose writes what it cannot deliver: errors/<stream prefix><error type>/dt=<day>/. */
export const DELIVERY_ERRORS_PREFIX = 'errors/';
/** Where the redrive keeps an errors/ object once it has re-sent its records: redriven/errors/… */
export const REDRIVEN_PREFIX = 'redriven/';
/** How long a redriven object is kept (its records are back in events/ or identities/). */
export const REDRIVEN_EXPIRATION_DAYS = 90;
