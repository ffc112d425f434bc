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
 * Athena's UNLOAD, which is Athena's and not in Trino's grammar: the wrapper as the UNLOAD page of
 * Athena's user guide gives it (`UNLOAD (SELECT …) TO 's3://…/' WITH (property_name = 'expression'
 * [, …])`, compression_level a number, partitioned_by an ARRAY of names), as Tally writes it (one line
 * each, lambdas/adapters/athena-compaction.ts); the query inside is checked by the grammar.
 */
const UNLOAD =
  /^UNLOAD \(\n([\s\S]+)\n\)\nTO 's3:\/\/[a-z0-9.-]+\/[^'\s]*\/'\nWITH \(format = 'PARQUET'(?:, (?:compression = '[A-Z]+'|compression_level = \d+|partitioned_by = ARRAY\['[a-z_]+'(?:, '[a-z_]+')*\]))*\)$/;

/**
 * The problems of one text Athena would run (one StartQueryExecution: exactly one statement), each
 * with its position, the parser's message and the offending line with a caret under the column.
 * Empty when the text parses.
 */
export function trinoSyntaxErrors(sql: string): string[] {
  const unload = UNLOAD.exec(sql);
  if (unload) return trinoSyntaxErrors(unload[1]!).map((e) => `in UNLOAD's query, ${e}`);
  if (/^\s*UNLOAD\b/i.test(sql))
    return [`an UNLOAD not of the form Athena documents and Tally writes: UNLOAD (\n<query>\n)\nTO 's3://…/'\nWITH (format = 'PARQUET', …)`];
  const lines = sql.split('\n');
  const errors = trino.validate(sql).map((e) => {
    const line = lines[e.startLine - 1] ?? '';
    return `line ${e.startLine}, column ${e.startColumn}: ${e.message}\n    ${line}\n    ${' '.repeat(Math.max(0, e.startColumn - 1))}^`;
  });
  if (errors.length > 0) return errors;
  const statements = (trino.splitSQLByStatement(sql) ?? []).filter((s) => s.text.trim() !== ';');
  return statements.length === 1 ? [] : [`${statements.length} statements in one text: Athena runs exactly one per query`];
}

/** A node of the parse tree: dt-sql-parser's ANTLR contexts, read by class name and children. */
interface ParseNode {
  children?: ParseNode[] | null;
  getText(): string;
}

const kind = (node: ParseNode) => node.constructor.name;
const unquote = (name: string) => name.replace(/"((?:[^"]|"")*)"/g, (_, inner: string) => inner.replaceAll('""', '"')).toLowerCase();

function add(into: Map<string, number>, from: Map<string, number>, times = 1): Map<string, number> {
  for (const [table, n] of from) into.set(table, (into.get(table) ?? 0) + n * times);
  return into;
}

/**
 * How many times Trino reads each table of one query text: every reference to a named relation of a
 * WITH clause counts the tables of its definition again, because Trino inlines the definition wherever
 * the name is used ("the SQL for the WITH clause will be inlined anywhere the named relation is used",
 * Trino's SELECT documentation, "WITH clause"). Table names are lower case, as written (qualified or not).
 */
export function tableReads(sql: string): Map<string, number> {
  const tree = trino.parse(sql) as unknown as ParseNode;
  const reads = (node: ParseNode, scope: Map<string, Map<string, number>>): Map<string, number> => {
    const children = node.children ?? [];
    if (kind(node) === 'TableRefContext') {
      const name = unquote(node.getText());
      return new Map(scope.get(name) ?? [[name, 1]]);
    }
    const withClause = children.find((c) => kind(c) === 'WithContext');
    let inner = scope;
    if (withClause) {
      inner = new Map(scope);
      for (const named of (withClause.children ?? []).filter((c) => kind(c) === 'NamedQueryContext')) {
        const [name, ...rest] = named.children ?? [];
        const body = rest.find((c) => kind(c) === 'QueryStatementContext' || kind(c) === 'QueryContext');
        inner.set(unquote(name!.getText()), body ? reads(body, inner) : new Map());
      }
    }
    const total = new Map<string, number>();
    for (const child of children) if (child !== withClause) add(total, reads(child, inner));
    return total;
  };
  return reads(tree, new Map());
}
