import { createProjectsListHandler } from '../handlers/projects';
import { lambdaHandler } from './aws';
import { adminWiring } from './admin-wiring';

export const handler = lambdaHandler('admin-projects-list', createProjectsListHandler, { ...adminWiring });
