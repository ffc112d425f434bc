/**
 * An insight kind's SQL text, its rules included, in the two forms it is rendered in: reading the
 * events' properties, or not (rules/event-properties-unused.sql in place of
 * rules/event-properties.sql: the text then references no properties column, so Parquet and Athena
 * read none). Pure.
 */
import { expandIncludes, SQL_RULES } from './include';

export interface InsightText {
  withProperties: string;
  withoutProperties: string;
}

export function insightText(sql: string): InsightText {
  return {
    withProperties: expandIncludes(sql),
    withoutProperties: expandIncludes(sql, { ...SQL_RULES, 'rules/event-properties.sql': SQL_RULES['rules/event-properties-unused.sql']! }),
  };
}

/** The form of the text an insight renders: with properties only when its definition reads one. */
export function insightTextFor(text: InsightText, usesProperties: boolean): string {
  return usesProperties ? text.withProperties : text.withoutProperties;
}
