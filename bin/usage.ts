/**
 * The command-line tools' bad-usage rule (`npm run smoke`, `npm run demo`): their options are read
 * into options objects that throw UsageError for a value no run can use; main() prints the message
 * with the tool's usage text and exits with usageExitCode's code (2 for bad usage, as node's own
 * parseArgs errors; 1 for anything else, e.g. a secret that could not be read).
 */
export class UsageError extends Error {}

export function usageExitCode(err: unknown): 1 | 2 {
  return err instanceof UsageError || (err as { code?: string } | undefined)?.code?.startsWith('ERR_PARSE_ARGS') ? 2 : 1;
}
