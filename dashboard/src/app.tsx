/** The app shell: sign-in when there is no token, else the header, the navigation and the routed page. */
import type { ComponentChildren } from 'preact';
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import { roleAllows, type AdminRole } from '../../lambdas/domain/admin-role';
import type { Project } from './admin-types';
import { createApiClient, type ApiClient } from './api';
import type { Endpoints } from './config';
import { match, navigate, pathOf, useRoute } from './router';
import { RoleContext } from './role';
import { ROUTES } from './routes';
import { session } from './session';
import { SignIn } from './sign-in';
import { ConfirmDialog } from './components/confirm-dialog';
import type { Sso, SsoUser } from './sso';
import { setProjectTimeZone } from './today';

/** The sections of a project, in the navigation's order; a section with `needs` is shown to that role and above. */
const SECTIONS: readonly { segment: string; label: string; needs?: AdminRole }[] = [
  { segment: 'keys', label: 'Keys' },
  { segment: 'install', label: 'Install' },
  { segment: 'events', label: 'Events' },
  { segment: 'users', label: 'People' },
  { segment: 'experiments', label: 'Experiments' },
  { segment: 'insights', label: 'Insights' },
  { segment: 'dashboards', label: 'Dashboards' },
  { segment: 'deletions', label: 'Deletions', needs: 'admin' },
];

/** Who is signed in: the admin token (role admin), or a person through single sign-on. */
interface Auth {
  token: string;
  role: AdminRole;
  /** The person's email or subject; null for the admin token. */
  who: string | null;
  /** A person's token: when it expires (ms since the epoch). */
  expiresAt?: number;
}

/** A person's session ended while a page was open: the page stays, under a dialog asking to sign in again. */
interface Ended {
  busy: boolean;
  error: string | null;
  /** The sign-in window failed: sign in again in this tab instead (back to this page; unsaved changes are lost). */
  inTab: boolean;
}

const fromSso = (user: SsoUser & { role: AdminRole }): Auth => ({ token: user.token, role: user.role, who: user.who, expiresAt: user.expiresAt });

/** A person with no role mapped from their groups is not signed in: every admin route would refuse them. */
function startingAuth(resumed: SsoUser | null): { auth: Auth | null; notice: string | null } {
  if (resumed?.role) return { auth: fromSso({ ...resumed, role: resumed.role }), notice: null };
  if (resumed) return { auth: null, notice: noRole(resumed.who) };
  const token = session.token();
  return { auth: token === null ? null : { token, role: 'admin', who: null }, notice: null };
}

const noRole = (who: string) =>
  `You signed in as ${who}, but none of your groups gives a Tally role (viewer, analyst, experimenter or admin). Ask a Tally admin to add you to one.`;

export function App({ apiBase, baseUrl, sso, resumed = null }: Endpoints & { sso?: Sso; resumed?: SsoUser | null }) {
  const path = useRoute();
  const [start] = useState(() => startingAuth(resumed));
  const [auth, setAuth] = useState<Auth | null>(start.auth);
  const [notice, setNotice] = useState<string | null>(start.notice ?? sso?.error ?? null);
  const [ended, setEnded] = useState<Ended | null>(null);
  const current = useRef(auth);
  current.current = auth;
  const api = useMemo(
    () =>
      createApiClient(
        apiBase,
        // The admin token read from sessionStorage at each call, as before; a person's ID token from memory.
        () => (current.current?.who ? current.current.token : session.token()),
        (message) => {
          // A person's session ended: the page stays, and they sign in again over it.
          if (current.current?.who && sso) return setEnded((e) => e ?? { busy: false, error: null, inTab: false });
          session.signOut();
          setNotice(`Signed out: ${message}. Sign in again.`);
          setAuth(null);
        },
      ),
    [apiBase, sso],
  );
  // Signed in at the issuer but given no role: this tab's token is of no use.
  useEffect(() => {
    if (start.notice) void sso?.expire();
  }, [start, sso]);
  // The token's expiry, while the page is open: say so before the next call is refused.
  useEffect(() => {
    if (!auth?.expiresAt) return;
    const timer = setTimeout(() => setEnded((e) => e ?? { busy: false, error: null, inTab: false }), Math.max(0, auth.expiresAt - Date.now()));
    return () => clearTimeout(timer);
  }, [auth]);
  const renew = async () => {
    if (!sso) return;
    if (ended?.inTab) {
      await sso.expire();
      return sso.signIn();
    }
    setEnded({ busy: true, error: null, inTab: false });
    try {
      const user = await sso.renew();
      setEnded(null);
      if (user.role) return setAuth(fromSso({ ...user, role: user.role }));
      setNotice(noRole(user.who));
      setAuth(null);
      void sso.expire();
    } catch (err) {
      setEnded({
        busy: false,
        error: `The sign-in window did not finish (${err instanceof Error ? err.message : String(err)}). Sign in in this tab instead: you come back to this page, but what you typed and did not save is lost.`,
        inTab: true,
      });
    }
  };
  if (!auth) {
    return (
      <SignIn
        apiBase={apiBase}
        notice={notice}
        sso={sso}
        onSignedIn={(token) => {
          session.signIn(token);
          setNotice(null);
          setAuth({ token, role: 'admin', who: null });
        }}
      />
    );
  }
  const signOut = () => {
    if (auth.who) void sso?.signOut();
    else session.signOut();
    setNotice(null);
    setEnded(null);
    setAuth(null);
  };
  const endedDialog = (
    <ConfirmDialog
      open={ended !== null}
      title="Your session has ended"
      tone="primary"
      confirmLabel={ended?.inTab ? 'Sign in in this tab' : 'Sign in again'}
      cancelLabel="Not now"
      busy={ended?.busy}
      error={ended?.error}
      onConfirm={() => void renew()}
      onCancel={() => setEnded(null)}
    >
      <p>Your sign-in has expired. Sign in again to carry on: this page, and what you typed in it, stays as it is; then press what you pressed again.</p>
    </ConfirmDialog>
  );
  for (const route of ROUTES) {
    const params = match(route.pattern, path);
    if (params) {
      const Page = route.page;
      return (
        <RoleContext.Provider value={auth.role}>
          <Shell api={api} path={path} projectId={params.projectId} title={route.title} who={auth.who} role={auth.role} onSignOut={signOut}>
            {/* A new page per page and project, so nothing (a new key, filters) carries over to another project; one page's own
              routes keep it (a created experiment's "Created." survives the move from …/new to its own address). */}
            <Page key={`${ROUTES.findIndex((r) => r.page === Page)} ${params.projectId ?? ''}`} api={api} apiBase={apiBase} baseUrl={baseUrl} params={params} />
          </Shell>
          {endedDialog}
        </RoleContext.Provider>
      );
    }
  }
  navigate('/projects');
  return null;
}

function Shell({
  api,
  path,
  projectId,
  title,
  who,
  role,
  onSignOut,
  children,
}: {
  api: ApiClient;
  path: string;
  projectId: string | undefined;
  title: string;
  who: string | null;
  role: AdminRole;
  onSignOut: () => void;
  children: ComponentChildren;
}) {
  const [projects, setProjects] = useState<Project[] | null>(null);
  // The switcher's list: loaded once, and again when the route names a project it does not know (just created).
  const known = projects === null || projectId === undefined || projects.some((p) => p.id === projectId);
  useEffect(() => {
    if (projects !== null && known) return;
    let live = true;
    api.get<{ projects: Project[] }>('/admin/v1/projects').then(
      (r) => live && setProjects(r.projects),
      () => live && setProjects((p) => p ?? []),
    );
    return () => {
      live = false;
    };
  }, [api, projectId, known]);
  const project = projects?.find((p) => p.id === projectId);
  // The project's days (relative ranges end today in its zone): set while rendering, before its pages.
  setProjectTimeZone(project?.time_zone);
  // Set before the page paints, so the title never lags the heading it names.
  useLayoutEffect(() => {
    document.title = [title, project?.name, 'Tally'].filter(Boolean).join(' · ');
  }, [title, project?.name]);
  const section = SECTIONS.find((s) => projectId !== undefined && path.startsWith(`${pathOf('projects', projectId)}/${s.segment}`))?.segment;
  return (
    <>
      <a class="skip-link" href="#main" onClick={(e) => (e.preventDefault(), document.getElementById('main')?.focus())}>
        Skip to content
      </a>
      <header class="top">
        <div class="bar">
          <a class="brand" href="#/projects">
            Tally
          </a>
          {projects && projects.length > 0 && (
            <label class="switcher">
              <span class="visually-hidden">Project</span>
              <select
                value={projectId ?? ''}
                onChange={(e) => {
                  const id = e.currentTarget.value;
                  navigate(id ? `${pathOf('projects', id)}/${section ?? 'keys'}` : '/projects');
                }}
              >
                <option value="">All projects</option>
                {projects.map((p) => (
                  <option key={p.id} value={p.id}>
                    {p.name}
                  </option>
                ))}
              </select>
            </label>
          )}
          {roleAllows(role, 'admin') && (
            <a class="audit-link" href="#/audit" aria-current={path === '/audit' ? 'page' : undefined}>
              Audit log
            </a>
          )}
          {who && (
            <span class="who muted">
              {who} · {role}
            </span>
          )}
          <button type="button" class="secondary sign-out" onClick={onSignOut}>
            Sign out
          </button>
        </div>
        {projectId !== undefined && (
          <nav aria-label="Project">
            <ul>
              {SECTIONS.filter((s) => !s.needs || roleAllows(role, s.needs)).map((s) => (
                <li key={s.segment}>
                  <a href={`#${pathOf('projects', projectId)}/${s.segment}`} aria-current={s.segment === section ? 'page' : undefined}>
                    {s.label}
                  </a>
                </li>
              ))}
            </ul>
          </nav>
        )}
      </header>
      <main id="main" tabIndex={-1}>
        {/* A project's pages once its project is known: their days are in its time zone. */}
        {projectId !== undefined && projects === null ? <p class="muted">Loading…</p> : children}
      </main>
    </>
  );
}
