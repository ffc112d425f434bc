/** The dashboards of each project (domain/insights/dashboard.ts). */
import type { Dashboard } from '../domain/insights/dashboard';
import type { ProjectRecordStore } from './project-record-store';

export type { Dashboard };

export type DashboardStore = ProjectRecordStore<Dashboard>;
