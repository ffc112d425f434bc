-- An event's properties (JSON text) as rules/range-events.sql reads them from the events' tables: a
-- SELECT list item. An insight whose definition names no property (no series measured by one, no
-- property breakdown, no step filtered on one) includes rules/event-properties-unused.sql in its
-- place (insight-kinds.ts), so its text references no properties column and no scan reads it: Parquet
-- and Athena read only the columns a query references, and properties is the widest column.
properties
