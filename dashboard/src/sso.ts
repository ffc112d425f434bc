/**
 * Single sign-on (docs/decisions/admin-sign-in.md): the authorization-code flow with PKCE through
 * oidc-client-ts, against the issuer the deployment names in config.json. The dashboard sends the ID
 * token (its `aud` is the dashboard's client ID, as the admin API checks) and reads the person's role
 * from its groups claim through the same mapping as the API (lambdas/domain/group-roles.ts).
 *
 * What is kept where: the signed-in user (ID and access tokens, about an hour) in this tab's
 * sessionStorage, so a reload keeps the session; never a refresh token (dropped before it is stored),
 * so no long-lived secret is readable by page scripts. A new tab, or a reload after the token expired,
 * re-runs the code flow: the issuer's own session cookie (on the issuer's origin, out of the page's
 * reach) makes that a pair of redirects without a password. localStorage holds only the fact that this
 * browser signs in with single sign-on (no secret), so a new tab knows to start that redirect.
 *
 * When the token expires while a page is open, the app asks the person to sign in again (`renew`) in a
 * small window (the code flow with PKCE in a popup, no iframe and no refresh token): the page, and
 * whatever was typed in it, stays as it was. That window comes back to this page, which hands the
 * answer to the tab that opened it and closes (`resume`, 'redirecting').
 */
import { UserManager, WebStorageStateStore, type User } from 'oidc-client-ts';
import type { DashboardSignIn } from '../../lambdas/contract/dashboard';
import type { AdminRole } from '../../lambdas/domain/admin-role';
import { DEFAULT_GROUP_ROLES, parseGroupRoles, roleFromClaims, type GroupRoles } from '../../lambdas/domain/group-roles';

/** localStorage: "this browser signs in with single sign-on" (a flag, never a token). */
const USES_SSO = 'tally.signsInWithSso';

export interface SsoUser {
  /** The ID token, sent as the bearer token. */
  token: string;
  /** The Tally role the token's groups map to; undefined when none is mapped (the API answers 403 to everything). */
  role: AdminRole | undefined;
  /** Who is signed in, for the header: the email, else the subject. */
  who: string;
  /** When the ID token expires (ms since the epoch): the API refuses it from then on. */
  expiresAt: number;
}

export interface Sso {
  /**
   * At start: finishes a sign-in coming back from the issuer, else resumes this tab's session, else (a
   * new tab of a browser that signed in with single sign-on) starts the redirect: 'redirecting'.
   */
  resume(): Promise<SsoUser | null | 'redirecting'>;
  /** Sends the browser to the issuer's sign-in; comes back to the dashboard page it left. */
  signIn(): Promise<void>;
  /** Signs in again in a small window while the page stays (the session ended while it was open). */
  renew(): Promise<SsoUser>;
  /** Drops this tab's expired or refused token; the next start signs in again through the issuer. */
  expire(): Promise<void>;
  /** Forgets the session in this browser (the issuer's own session stays: sign out there too on a shared computer). */
  signOut(): Promise<void>;
  /** What went wrong coming back from the issuer, for the sign-in page. */
  error: string | null;
}

const storage = (area: 'localStorage' | 'sessionStorage'): Storage | undefined => {
  try {
    return globalThis[area];
  } catch {
    return undefined;
  }
};

export function createSso(config: DashboardSignIn): Sso {
  const here = `${location.origin}${location.pathname}`;
  const manager = new UserManager({
    authority: config.issuer,
    client_id: config.clientId,
    redirect_uri: here,
    popup_redirect_uri: here,
    response_type: 'code',
    scope: 'openid email profile',
    loadUserInfo: false,
    automaticSilentRenew: false,
    userStore: new WebStorageStateStore({ store: sessionStorage }),
    stateStore: new WebStorageStateStore({ store: sessionStorage }),
  });
  const parsed = config.groupRoles ? parseGroupRoles(config.groupRoles) : DEFAULT_GROUP_ROLES;
  const mapping: GroupRoles = 'problem' in parsed ? DEFAULT_GROUP_ROLES : parsed;
  const toSsoUser = (user: User): SsoUser => ({
    token: user.id_token ?? '',
    role: roleFromClaims(user.profile as Record<string, unknown>, config.groupsClaim, mapping),
    who: typeof user.profile.email === 'string' ? user.profile.email : user.profile.sub,
    expiresAt: (typeof user.profile.exp === 'number' ? user.profile.exp : (user.expires_at ?? 0)) * 1000,
  });
  /** The sign-in window `renew` opened, back from the issuer: hand the answer to the tab that opened it. */
  const inRenewWindow = () => {
    try {
      return window.opener !== null && window.opener !== window && (window.opener as Window).location.origin === location.origin;
    } catch {
      return false;
    }
  };

  const sso: Sso = {
    error: null,
    async resume() {
      const query = new URLSearchParams(location.search);
      if (query.has('state') && (query.has('code') || query.has('error')) && inRenewWindow()) {
        await manager.signinPopupCallback();
        return 'redirecting';
      }
      if (query.has('state') && (query.has('code') || query.has('error'))) {
        try {
          const user = await manager.signinRedirectCallback();
          // Never keep a refresh token where page scripts can read it: an expired session re-runs the code flow instead.
          user.refresh_token = undefined;
          await manager.storeUser(user);
          storage('localStorage')?.setItem(USES_SSO, '1');
          history.replaceState(null, '', `${location.pathname}${typeof user.state === 'string' ? user.state : ''}`);
          return toSsoUser(user);
        } catch (err) {
          history.replaceState(null, '', location.pathname);
          sso.error = `Single sign-on did not complete: ${err instanceof Error ? err.message : String(err)}. Sign in again.`;
          return null;
        }
      }
      const user = await manager.getUser();
      if (user && !user.expired && user.id_token) return toSsoUser(user);
      if (user) await manager.removeUser();
      if (storage('localStorage')?.getItem(USES_SSO)) {
        await sso.signIn();
        return 'redirecting';
      }
      return null;
    },
    async signIn() {
      await manager.signinRedirect({ state: location.hash });
    },
    async renew() {
      const user = await manager.signinPopup({ popupWindowFeatures: { width: 520, height: 640 } });
      user.refresh_token = undefined;
      await manager.storeUser(user);
      return toSsoUser(user);
    },
    async expire() {
      await manager.removeUser();
    },
    async signOut() {
      storage('localStorage')?.removeItem(USES_SSO);
      await manager.removeUser();
    },
  };
  return sso;
}
