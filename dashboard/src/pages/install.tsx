import type { PageProps } from '../page';

// Placeholder: this page is built by the dashboard issue (14).
export function InstallPage(_props: PageProps) {
  return <h1>Install</h1>;
}
