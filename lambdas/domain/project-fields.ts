/** A project's name as people type it: its limit (the admin API enforces the same) and, for the dashboard, what is wrong in plain words. Pure. */
export const PROJECT_NAME_LENGTH = 200;

export function projectNameProblem(name: string): string | undefined {
  const trimmed = name.trim();
  if (!trimmed) return 'Give the project a name, for example “Web shop”.';
  if (trimmed.length > PROJECT_NAME_LENGTH) return `Shorten the name to ${PROJECT_NAME_LENGTH} characters or fewer (it has ${trimmed.length}).`;
  return undefined;
}
