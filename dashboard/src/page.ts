import type { ApiClient } from './api';

/** What every page receives from the app shell. */
export interface PageProps {
  api: ApiClient;
  /** The API's base URL ending in "/" (for the install snippet). */
  apiBase: string;
  /** The route's parameters, URI-decoded (see routes.ts). */
  params: Record<string, string>;
}
