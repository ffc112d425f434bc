/**
 * The views readers query over the landing and curated tables (docs/data-model.md;
 * docs/decisions/columnar-events.md), named once for the Lambdas that create them and the CDK app that
 * grants that (lib/grants.ts). Plain data.
 */
import { EVENTS_BY_ARRIVAL_VIEW, EVENTS_TAIL_VIEW, STREAM_NAMES, streamView } from './landing';

/** The raw events table with every event once: <database>.unique_events on AWS, unique_events locally. */
export const UNIQUE_EVENTS_VIEW = 'unique_events';

/** Every view the deploy and the compaction job create: events, identities, events_tail, unique_events (over events), events_by_arrival. */
export const READER_VIEWS: readonly string[] = [...STREAM_NAMES.map(streamView), EVENTS_TAIL_VIEW, UNIQUE_EVENTS_VIEW, EVENTS_BY_ARRIVAL_VIEW];
