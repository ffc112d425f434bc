/**
 * Expands the includes of the results SQL: a line holding only `{{> rules/<name>.sql}}` (optionally
 * followed by a comma) becomes that rule's text, each line indented like the include line and the
 * comma appended to its last line. Each counting rule the queries share (identity resolution, the
 * raw event's columns, which copy of an event counts, the enrollment variant, the result rows) lives
 * in one file under rules/, with the comment that explains it, and every query that applies it
 * includes it. A rule may include another (the raw event's columns include the copy rank), never
 * itself through any chain. Expanded before rendering (render.ts),
 * so the text an engine runs, and the text the results' `computation.query` shows, is one complete
 * query. Pure.
 */
import BATCH_CURATED_ROWS_SQL from './rules/batch-curated-rows.sql';
import BATCH_LANDING_ROWS_SQL from './rules/batch-landing-rows.sql';
import BREAKDOWN_KIND_SQL from './rules/breakdown-kind.sql';
import BREAKDOWN_RAW_SQL from './rules/breakdown-raw.sql';
import CANONICAL_IDS_SQL from './rules/canonical-ids.sql';
import COPY_RANK_SQL from './rules/copy-rank.sql';
import CURATED_TIMESTAMP_MINUTE_SQL from './rules/curated-timestamp-minute.sql';
import ENROLLMENT_VARIANT_SQL from './rules/enrollment-variant.sql';
import EVENT_COLUMNS_SQL from './rules/event-columns.sql';
import EVENT_DATA_COLUMNS_SQL from './rules/event-data-columns.sql';
import EVENT_PROPERTIES_SQL from './rules/event-properties.sql';
import EVENT_PROPERTIES_UNUSED_SQL from './rules/event-properties-unused.sql';
import EVENTS_TAIL_SQL from './rules/events-tail.sql';
import IDENTITY_DATA_COLUMNS_SQL from './rules/identity-data-columns.sql';
import METRIC_CAPPING_SQL from './rules/metric-capping.sql';
import METRIC_SLOTS_SQL from './rules/metric-slots.sql';
import METRIC_USER_SUMS_SQL from './rules/metric-user-sums.sql';
import METRIC_VALUE_SQL from './rules/metric-value.sql';
import PERSON_EVENT_ROWS_SQL from './rules/person-event-rows.sql';
import PERSON_IDENTITY_ROWS_SQL from './rules/person-identity-rows.sql';
import POINTER_JUMP_SQL from './rules/pointer-jump.sql';
import PROPERTY_NUMBER_SQL from './rules/property-number.sql';
import RANGE_EVENT_COLUMNS_SQL from './rules/range-event-columns.sql';
import RANGE_EVENTS_SQL from './rules/range-events.sql';
import SUMMARY_MERGE_SQL from './rules/summary-merge.sql';
import TIMESTAMP_MINUTE_SQL from './rules/timestamp-minute.sql';
import VARIANT_ROWS_SQL from './rules/variant-rows.sql';
import { SqlRenderError } from './render-error';

/** The rules the queries may include, by their path relative to lambdas/adapters/sql/. */
export const SQL_RULES: Readonly<Record<string, string>> = {
  'rules/batch-curated-rows.sql': BATCH_CURATED_ROWS_SQL,
  'rules/batch-landing-rows.sql': BATCH_LANDING_ROWS_SQL,
  'rules/breakdown-kind.sql': BREAKDOWN_KIND_SQL,
  'rules/breakdown-raw.sql': BREAKDOWN_RAW_SQL,
  'rules/canonical-ids.sql': CANONICAL_IDS_SQL,
  'rules/copy-rank.sql': COPY_RANK_SQL,
  'rules/curated-timestamp-minute.sql': CURATED_TIMESTAMP_MINUTE_SQL,
  'rules/enrollment-variant.sql': ENROLLMENT_VARIANT_SQL,
  'rules/event-columns.sql': EVENT_COLUMNS_SQL,
  'rules/event-data-columns.sql': EVENT_DATA_COLUMNS_SQL,
  'rules/event-properties.sql': EVENT_PROPERTIES_SQL,
  'rules/event-properties-unused.sql': EVENT_PROPERTIES_UNUSED_SQL,
  'rules/events-tail.sql': EVENTS_TAIL_SQL,
  'rules/identity-data-columns.sql': IDENTITY_DATA_COLUMNS_SQL,
  'rules/metric-capping.sql': METRIC_CAPPING_SQL,
  'rules/metric-slots.sql': METRIC_SLOTS_SQL,
  'rules/metric-user-sums.sql': METRIC_USER_SUMS_SQL,
  'rules/metric-value.sql': METRIC_VALUE_SQL,
  'rules/person-event-rows.sql': PERSON_EVENT_ROWS_SQL,
  'rules/person-identity-rows.sql': PERSON_IDENTITY_ROWS_SQL,
  'rules/pointer-jump.sql': POINTER_JUMP_SQL,
  'rules/property-number.sql': PROPERTY_NUMBER_SQL,
  'rules/range-event-columns.sql': RANGE_EVENT_COLUMNS_SQL,
  'rules/range-events.sql': RANGE_EVENTS_SQL,
  'rules/summary-merge.sql': SUMMARY_MERGE_SQL,
  'rules/timestamp-minute.sql': TIMESTAMP_MINUTE_SQL,
  'rules/variant-rows.sql': VARIANT_ROWS_SQL,
};

const INCLUDE_LINE = /^([ \t]*)\{\{>\s*([^\s{}]+)\s*\}\}(,?)[ \t]*$/;

/** The rule's lines, its own includes expanded, without the trailing blank ones. */
function ruleLines(name: string, rules: Readonly<Record<string, string>>, including: readonly string[]): string[] {
  if (!Object.hasOwn(rules, name)) throw new SqlRenderError(`No SQL rule "${name}" to include (known: ${Object.keys(rules).join(', ')})`);
  if (including.includes(name)) throw new SqlRenderError(`SQL rule "${name}" includes itself (${[...including, name].join(' > ')})`);
  return expandLines(rules[name]!.replace(/\s+$/, ''), rules, [...including, name]);
}

/** The SQL with every include line replaced by the rule it names. */
export function expandIncludes(sql: string, rules: Readonly<Record<string, string>> = SQL_RULES): string {
  return expandLines(sql, rules, []).join('\n');
}

function expandLines(sql: string, rules: Readonly<Record<string, string>>, including: readonly string[]): string[] {
  return sql.split('\n').flatMap((line) => {
    const m = INCLUDE_LINE.exec(line);
    if (!m) return [line];
    const [, indent, name, comma] = m as unknown as [string, string, string, string];
    const lines = ruleLines(name, rules, including).map((ruleLine) => (ruleLine === '' ? '' : indent + ruleLine));
    const last = lines.length - 1;
    if (comma) {
      if (lines[last]!.includes('--')) throw new SqlRenderError(`SQL rule "${name}" must end in code, not a comment: the include adds a comma`);
      lines[last] += comma;
    }
    return lines;
  });
}
