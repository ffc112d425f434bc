/** The admin token lives in sessionStorage only: never localStorage, never a URL. */
const KEY = 'tally.adminToken';

export const session = {
  token(): string | null {
    try {
      return sessionStorage.getItem(KEY);
    } catch {
      return null;
    }
  },
  signIn(token: string): void {
    sessionStorage.setItem(KEY, token);
  },
  signOut(): void {
    try {
      sessionStorage.removeItem(KEY);
    } catch {
      // Storage unavailable: nothing was stored.
    }
  },
};
