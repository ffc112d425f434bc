/**
 * An insight kind's SQL text, its rules included, in the two forms it is rendered in: reading the
 * events' properties, or not (rules/event-properties-unused.sql in place of
 * rules/event-properties.sql: the text then references no properties column, so Parquet and Athena
 * read none). A kind that orders events by their timestamp (`readsTimestamp`: funnels, retention)
 * computes each event's minute from it (rules/timestamp-minute.sql in place of
 * rules/curated-timestamp-minute.sql), so its scan does not read the curated timestamp_minute column
 * besides the timestamp; a trend reads that column and not the timestamp. Pure.
 */
import { expandIncludes, SQL_RULES } from './include';

export interface InsightText {
  withProperties: string;
  withoutProperties: string;
}

export interface InsightTextOptions {
  /** The kind reads every event's timestamp anyway (to order events). */
  readsTimestamp?: boolean;
}

export function insightText(sql: string, options: InsightTextOptions = {}): InsightText {
  const rules = options.readsTimestamp ? { ...SQL_RULES, 'rules/curated-timestamp-minute.sql': SQL_RULES['rules/timestamp-minute.sql']! } : SQL_RULES;
  return {
    withProperties: expandIncludes(sql, rules),
    withoutProperties: expandIncludes(sql, { ...rules, 'rules/event-properties.sql': SQL_RULES['rules/event-properties-unused.sql']! }),
  };
}

/** The form of the text an insight renders: with properties only when its definition reads one. */
export function insightTextFor(text: InsightText, usesProperties: boolean): string {
  return usesProperties ? text.withProperties : text.withoutProperties;
}
