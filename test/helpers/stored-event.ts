/**
 * A stored event (one raw event stream record) for tests that write the stream's files themselves:
 * the fields a test names, and the rest as an event that set nothing else would have them (null
 * device and location fields, empty properties, received when it happened, sent on /v1/events).
 */
import type { StoredEvent } from '../../lambdas/domain/event';

export function storedEventFixture(fields: Pick<StoredEvent, 'project_id' | 'dedupe_key' | 'name' | 'timestamp'> & Partial<StoredEvent>): StoredEvent {
  return {
    event_id: null,
    user_id: null,
    sent_user_id: null,
    session_id: null,
    received_at: fields.timestamp,
    properties: {},
    platform: null,
    app_version: null,
    app_build_number: null,
    os_version: null,
    environment: null,
    device_manufacturer: null,
    locale: null,
    timezone: null,
    country: null,
    region: null,
    city: null,
    sdk: null,
    sdk_version: null,
    source: 'v1',
    ...fields,
  };
}
