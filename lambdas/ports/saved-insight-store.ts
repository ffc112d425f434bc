/** The saved insights of each project (domain/insights/saved-insight.ts). */
import type { SavedInsight } from '../domain/insights/saved-insight';
import type { ProjectRecordStore } from './project-record-store';

export type { SavedInsight };

export type SavedInsightStore = ProjectRecordStore<SavedInsight>;
