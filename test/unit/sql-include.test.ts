import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { expandIncludes, SQL_RULES } from '../../lambdas/adapters/sql/include';
import { renderSql, SqlRenderError } from '../../lambdas/adapters/sql/render';
import RESULTS_COUNT_SQL from '../../lambdas/adapters/sql/results-count.sql';
import RESULTS_COUNT_INCREMENTAL_SQL from '../../lambdas/adapters/sql/results-count-incremental.sql';
import RESULTS_BASE_SQL from '../../lambdas/adapters/sql/results-base.sql';
import RESULTS_SUMMARY_SQL from '../../lambdas/adapters/sql/results-summary.sql';
import INSIGHT_TRENDS_SQL from '../../lambdas/adapters/sql/insight-trends.sql';
import INSIGHT_FUNNELS_SQL from '../../lambdas/adapters/sql/insight-funnels.sql';
import INSIGHT_RETENTION_SQL from '../../lambdas/adapters/sql/insight-retention.sql';
import COMPACT_EVENTS_SQL from '../../lambdas/adapters/sql/compact-events.sql';
import EVENTS_VIEW_SQL from '../../lambdas/adapters/sql/events-view.sql';
import EVENTS_TAIL_VIEW_SQL from '../../lambdas/adapters/sql/events-tail-view.sql';
import COMPACT_IDENTITIES_SQL from '../../lambdas/adapters/sql/compact-identities.sql';
import IDENTITIES_VIEW_SQL from '../../lambdas/adapters/sql/identities-view.sql';
import ERASE_EVENTS_PARTITIONS_SQL from '../../lambdas/adapters/sql/erase-events-partitions.sql';
import ERASE_EVENTS_ROWS_SQL from '../../lambdas/adapters/sql/erase-events-rows.sql';
import ERASE_IDENTITIES_PARTITIONS_SQL from '../../lambdas/adapters/sql/erase-identities-partitions.sql';
import ERASE_IDENTITIES_ROWS_SQL from '../../lambdas/adapters/sql/erase-identities-rows.sql';
import EXPORT_EVENTS_SQL from '../../lambdas/adapters/sql/export-events.sql';
import EXPORT_IDENTITIES_SQL from '../../lambdas/adapters/sql/export-identities.sql';
import { STORED_EVENT_FIELDS } from '../../lambdas/domain/event';
import { IDENTITY_COLUMNS } from '../../lambdas/adapters/duckdb-columns';
import { CURATED_ONLY_COLUMNS } from '../../lambdas/contract/landing';

describe('SQL rule includes (lambdas/adapters/sql/include.ts)', () => {
  const rules = { 'rules/cols.sql': '-- why\na,\nb AS c\n\n', 'rules/cte.sql': 'x AS (\n\n  SELECT 1\n)\n' };

  it('puts the rule in place of the include line, indented like it, with its comma on the last line', () => {
    const sql = 'WITH\n{{> rules/cte.sql}},\ny AS (\n  SELECT\n    {{> rules/cols.sql}}\n  FROM x\n)\nSELECT * FROM y';
    expect(expandIncludes(sql, rules)).toBe('WITH\nx AS (\n\n  SELECT 1\n),\ny AS (\n  SELECT\n    -- why\n    a,\n    b AS c\n  FROM x\n)\nSELECT * FROM y');
    expect(renderSql(expandIncludes(sql, rules), {}, {})).toBe(
      'WITH\nx AS (\n  SELECT 1\n),\ny AS (\n  SELECT\n    a,\n    b AS c\n  FROM x\n)\nSELECT * FROM y',
    );
  });

  it('leaves an include named inside a comment or a longer line alone', () => {
    const sql = "-- included with {{> rules/cols.sql}}\nSELECT '{{> rules/cols.sql}}'";
    expect(expandIncludes(sql, rules)).toBe(sql);
  });

  it('expands a rule a rule includes, indented like both include lines', () => {
    const nested = { ...rules, 'rules/outer.sql': 'x,\n  {{> rules/cols.sql}}' };
    expect(expandIncludes('SELECT\n  {{> rules/outer.sql}}\nFROM t', nested)).toBe('SELECT\n  x,\n    -- why\n    a,\n    b AS c\nFROM t');
  });

  it('refuses an unknown rule, a rule that includes itself, a comma after a trailing comment, and an unexpanded include', () => {
    expect(() => expandIncludes('{{> rules/none.sql}}', rules)).toThrow(/No SQL rule "rules\/none.sql" to include \(known: rules\/cols.sql, rules\/cte.sql\)/);
    expect(() => expandIncludes('{{> rules/a.sql}}', { 'rules/a.sql': '  {{> rules/a.sql}}' })).toThrow(
      /"rules\/a.sql" includes itself \(rules\/a.sql > rules\/a.sql\)/,
    );
    expect(() => expandIncludes('{{> rules/a.sql}}', { 'rules/a.sql': '{{> rules/b.sql}}', 'rules/b.sql': '{{> rules/a.sql}}' })).toThrow(
      /includes itself \(rules\/a.sql > rules\/b.sql > rules\/a.sql\)/,
    );
    expect(() => expandIncludes('{{> rules/a.sql}},', { 'rules/a.sql': 'x AS (SELECT 1) -- note' })).toThrow(/must end in code/);
    expect(() => renderSql('SELECT\n  {{> rules/cols.sql}}\nFROM t', {}, {})).toThrow(SqlRenderError);
    expect(() => renderSql('SELECT\n  {{> rules/cols.sql}}\nFROM t', {}, {})).toThrow(/not expanded/);
  });

  const includes = (sql: string, name: string): boolean =>
    sql.split('\n').some((line) => {
      const included = /^\s*\{\{>\s*(\S+)\s*\}\},?\s*$/.exec(line)?.[1];
      return included !== undefined && (included === name || includes(SQL_RULES[included] ?? '', name));
    });

  /** Rules of the insights only (docs/decisions/insights.md): included by an insight query, not by the results. */
  const INSIGHT_RULES = [
    'rules/breakdown-kind.sql',
    'rules/breakdown-raw.sql',
    'rules/curated-timestamp-minute.sql',
    'rules/event-properties.sql',
    'rules/property-number.sql',
    'rules/range-event-columns.sql',
    'rules/range-events.sql',
  ];
  /** Rules rendered in place of another (sql/insight-text.ts), never included by name: the one they replace must be. */
  const SUBSTITUTE_RULES: Record<string, string> = { 'rules/event-properties-unused.sql': 'rules/event-properties.sql' };

  it('every rule is included (directly or by another rule) by a results query or an insight query, and each query expands to text without includes', () => {
    const queries = [
      RESULTS_COUNT_SQL,
      RESULTS_COUNT_INCREMENTAL_SQL,
      RESULTS_SUMMARY_SQL,
      RESULTS_BASE_SQL,
      COMPACT_EVENTS_SQL,
      EVENTS_VIEW_SQL,
      EVENTS_TAIL_VIEW_SQL,
      COMPACT_IDENTITIES_SQL,
      IDENTITIES_VIEW_SQL,
      ERASE_EVENTS_PARTITIONS_SQL,
      ERASE_EVENTS_ROWS_SQL,
      ERASE_IDENTITIES_PARTITIONS_SQL,
      ERASE_IDENTITIES_ROWS_SQL,
      EXPORT_EVENTS_SQL,
      EXPORT_IDENTITIES_SQL,
    ];
    const insights = [INSIGHT_TRENDS_SQL, INSIGHT_FUNNELS_SQL, INSIGHT_RETENTION_SQL];
    for (const name of Object.keys(SQL_RULES)) {
      if (SUBSTITUTE_RULES[name]) expect(insights.filter((sql) => includes(sql, SUBSTITUTE_RULES[name]!)).length, name).toBeGreaterThanOrEqual(1);
      else if (INSIGHT_RULES.includes(name)) expect(insights.filter((sql) => includes(sql, name)).length, name).toBeGreaterThanOrEqual(1);
      else expect(queries.filter((sql) => includes(sql, name)).length, name).toBeGreaterThanOrEqual(2);
    }
    for (const sql of [...queries, ...insights]) expect(expandIncludes(sql)).not.toMatch(/^\s*\{\{>/m);
    // Every insight reads the events through one rule, and shares the results' identity rule.
    for (const sql of insights) {
      for (const name of ['rules/range-events.sql', 'rules/canonical-ids.sql']) expect(includes(sql, name), name).toBe(true);
    }
    // Which copy of an event is kept is decided where copies exist: compaction, the views' landing
    // tail, and the results job's reads of landing by arrival; readers of the events view need not.
    for (const sql of [COMPACT_EVENTS_SQL, EVENTS_VIEW_SQL, RESULTS_SUMMARY_SQL]) expect(includes(sql, 'rules/copy-rank.sql')).toBe(true);
  });

  it('every query reading landing events through rules/event-columns.sql keeps the first copy of each event only (copy_rank = 1)', () => {
    // Every query file, so a new one (a count or sum metric) is checked as soon as it exists. A query
    // over the events view reads each event once already; one over the landing events by arrival
    // ({{events}} rendered to events_by_arrival: results-summary.sql) ranks the copies itself.
    const dir = join(import.meta.dirname, '../../lambdas/adapters/sql');
    const queries = readdirSync(dir)
      .filter((f) => f.endsWith('.sql'))
      .map((f) => readFileSync(join(dir, f), 'utf8'));
    const readers = queries.filter((sql) => includes(sql, 'rules/event-columns.sql'));
    expect(readers).toEqual(expect.arrayContaining([RESULTS_COUNT_SQL, RESULTS_SUMMARY_SQL]));
    const landingReaders = readers.filter((sql) => /events_by_arrival|arrival_hour/.test(sql));
    expect(landingReaders).toEqual([RESULTS_SUMMARY_SQL]);
    for (const sql of landingReaders) {
      // The subquery holding the rules, then, right after it closes, the filter on its copy_rank.
      expect(sql).toMatch(
        /\{\{> rules\/event-columns\.sql\}\},\n\s*\{\{> rules\/copy-rank\.sql\}\}\n(?:.*\n)*?\s*\) parsed\n(?:\s*--.*\n)*\s*WHERE copy_rank = 1\n/,
      );
    }
  });

  it("the column lists of the curated layout are the stored records' fields, in order, project_id aside", () => {
    const names = (rule: string) => [...SQL_RULES[rule]!.replace(/^--.*$/gm, '').matchAll(/"([a-z_]+)"/g)].map((m) => m[1]);
    expect(names('rules/event-data-columns.sql')).toEqual(STORED_EVENT_FIELDS.filter((f) => f !== 'project_id'));
    expect(names('rules/identity-data-columns.sql')).toEqual(Object.keys(IDENTITY_COLUMNS));
  });

  it("the texts writing curated events list the record's columns, then the curated-only ones, then the partitions, as UNLOAD's partitioned_by asks (partition columns last)", () => {
    // lib/analytics.ts declares curated_events as the record's data columns, then
    // CURATED_ONLY_COLUMNS.events (test/stack/data.test.ts checks the template's order); Athena's UNLOAD
    // wants "the names of the partitioned columns … last in your list of columns" (UNLOAD, Athena user guide).
    const aliases = (rule: string) => [...SQL_RULES[rule]!.replace(/^--.*$/gm, '').matchAll(/ AS ([a-z_]+)\s*$/gm)].map((m) => m[1]);
    expect(aliases('rules/timestamp-minute.sql')).toEqual([...CURATED_ONLY_COLUMNS.events]);
    for (const sql of [COMPACT_EVENTS_SQL, ERASE_EVENTS_ROWS_SQL]) {
      expect(sql.replace(/^--.*\n/gm, '')).toMatch(
        /^SELECT\n {2}\{\{> rules\/event-data-columns\.sql\}\},\n {2}\{\{> rules\/timestamp-minute\.sql\}\},\n {2}project_id,\n {2}dt\n/,
      );
    }
  });
});
