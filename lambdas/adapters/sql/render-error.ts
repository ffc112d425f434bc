/** A query text that cannot be rendered safely: a bad value, table name, placeholder or include. */
export class SqlRenderError extends Error {
  override name = 'SqlRenderError';
}
