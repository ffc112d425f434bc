/**
 * Checks SQL text against Trino's grammar (Athena engine 3), with dt-sql-parser's ANTLR4 Trino
 * grammar (a devDependency: tests only, never in a Lambda bundle). It catches syntax DuckDB accepts
 * and Trino refuses (`->>`, `::`, trailing commas, ILIKE, QUALIFY, `UNION ... BY NAME`, more than one
 * statement in a text); not whether a function exists, types, or Athena's own limits
 * (docs/decisions/one-query-source.md, "Grammar check").
 */
// The Trino parser alone: the package's index loads all its seven grammars (about 18 MB of JavaScript),
// which took 11-12 s to import under vitest on the loaded 2-core machine against 1.3-1.8 s for this
// one. The package has no exports map, so the path is reachable; the exact pin in package.json keeps it.
import { TrinoSQL } from 'dt-sql-parser/dist/parser/trino';

const trino = new TrinoSQL();

/**
 * The problems of one text Athena would run (one StartQueryExecution: exactly one statement), each
 * with its position, the parser's message and the offending line with a caret under the column.
 * Empty when the text parses.
 */
export function trinoSyntaxErrors(sql: string): string[] {
  const lines = sql.split('\n');
  const errors = trino.validate(sql).map((e) => {
    const line = lines[e.startLine - 1] ?? '';
    return `line ${e.startLine}, column ${e.startColumn}: ${e.message}\n    ${line}\n    ${' '.repeat(Math.max(0, e.startColumn - 1))}^`;
  });
  if (errors.length > 0) return errors;
  const statements = (trino.splitSQLByStatement(sql) ?? []).filter((s) => s.text.trim() !== ';');
  return statements.length === 1 ? [] : [`${statements.length} statements in one text: Athena runs exactly one per query`];
}
