/**
 * The views analysts query next to the raw tables (docs/data-model.md, "Unique events"), named once
 * for the Lambdas that create them and the CDK app that grants that (lib/grants.ts). Plain data.
 */

/** The raw events table with every event once: <database>.unique_events on AWS, unique_events locally. */
export const UNIQUE_EVENTS_VIEW = 'unique_events';
