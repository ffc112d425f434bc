/** A .sql file imports as its text (lambdas/local/sql-text/hooks.mjs; esbuild's text loader in bundles). */
declare module '*.sql' {
  const text: string;
  export default text;
}
