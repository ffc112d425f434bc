import type { PageProps } from '../page';

// Placeholder: this page is built by the dashboard issue (14).
export function ResultsPage(_props: PageProps) {
  return <h1>Results</h1>;
}
