/** Every page of the dashboard and its hash route. The app shell (app.tsx) picks the first match. */
import type { FunctionComponent } from 'preact';
import type { PageProps } from './page';
import { DashboardPage, DashboardsPage } from './pages/dashboards';
import { AuditPage } from './pages/audit';
import { DeletionsPage } from './pages/deletions';
import { EventsPage } from './pages/events';
import { ExperimentEditPage } from './pages/experiment-edit';
import { ExperimentsPage } from './pages/experiments';
import { FunnelsPage } from './pages/funnels';
import { InsightsPage } from './pages/insights';
import { InstallPage } from './pages/install';
import { KeysPage } from './pages/keys';
import { ProjectsPage } from './pages/projects';
import { ResultsPage } from './pages/results';
import { RetentionPage } from './pages/retention';
import { TrendsPage } from './pages/trends';
import { UsersPage } from './pages/users';

export interface Route {
  pattern: string;
  title: string;
  page: FunctionComponent<PageProps>;
}

export const ROUTES: Route[] = [
  { pattern: '/projects', title: 'Projects', page: ProjectsPage },
  { pattern: '/audit', title: 'Audit log', page: AuditPage },
  { pattern: '/projects/:projectId/keys', title: 'Keys', page: KeysPage },
  { pattern: '/projects/:projectId/install', title: 'Install', page: InstallPage },
  { pattern: '/projects/:projectId/events', title: 'Events', page: EventsPage },
  { pattern: '/projects/:projectId/users', title: 'People', page: UsersPage },
  { pattern: '/projects/:projectId/users/:userId', title: 'People', page: UsersPage },
  { pattern: '/projects/:projectId/experiments', title: 'Experiments', page: ExperimentsPage },
  { pattern: '/projects/:projectId/experiments/new', title: 'New experiment', page: ExperimentEditPage },
  { pattern: '/projects/:projectId/experiments/:experimentId', title: 'Experiment', page: ExperimentEditPage },
  { pattern: '/projects/:projectId/experiments/:experimentId/results', title: 'Results', page: ResultsPage },
  { pattern: '/projects/:projectId/insights', title: 'Insights', page: InsightsPage },
  { pattern: '/projects/:projectId/insights/trends', title: 'Trends', page: TrendsPage },
  { pattern: '/projects/:projectId/insights/funnels', title: 'Funnels', page: FunnelsPage },
  { pattern: '/projects/:projectId/insights/retention', title: 'Retention', page: RetentionPage },
  { pattern: '/projects/:projectId/dashboards', title: 'Dashboards', page: DashboardsPage },
  { pattern: '/projects/:projectId/dashboards/:dashboardId', title: 'Dashboard', page: DashboardPage },
  { pattern: '/projects/:projectId/deletions', title: 'Deletions', page: DeletionsPage },
  { pattern: '/projects/:projectId/deletions/:deletionId', title: 'Deletion', page: DeletionsPage },
];
