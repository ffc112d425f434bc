/** What is wrong with the insight link the page was opened with (hash-state.ts readInsightHash), instead of a silently empty form. */
export function LinkProblem({ problem }: { problem: string | undefined }) {
  if (problem === undefined) return null;
  return (
    <p class="error link-problem" role="alert">
      This link could not be opened as it is: {problem}.
    </p>
  );
}
