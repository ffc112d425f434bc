import type { ApiClient } from './api';

/** What every page receives from the app shell. */
export interface PageProps {
  api: ApiClient;
  /** The admin API's base URL, ending in "/". */
  apiBase: string;
  /** The {base_url} apps send events to, ending in "/" (the install snippet; see config.ts). */
  baseUrl: string;
  /** The route's parameters, URI-decoded (see routes.ts). */
  params: Record<string, string>;
}
