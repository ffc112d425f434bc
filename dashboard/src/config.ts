/** Where the API is: config.json next to index.html (written by the stack on AWS), else this origin. */
import { DASHBOARD_CONFIG_FILE, type DashboardConfig } from '../../lambdas/contract/dashboard';

export async function loadApiBase(): Promise<string> {
  try {
    const response = await fetch(DASHBOARD_CONFIG_FILE, { cache: 'no-store' });
    if (response.ok) {
      const config = (await response.json()) as DashboardConfig;
      if (typeof config.apiUrl === 'string' && config.apiUrl !== '') return config.apiUrl.endsWith('/') ? config.apiUrl : `${config.apiUrl}/`;
    }
  } catch {
    // No config file: the API is served from this origin (npm start).
  }
  return new URL('/', location.href).href;
}
