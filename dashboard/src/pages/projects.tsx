import type { PageProps } from '../page';

// Placeholder: this page is built by the dashboard issue (14).
export function ProjectsPage(_props: PageProps) {
  return <h1>Projects</h1>;
}
