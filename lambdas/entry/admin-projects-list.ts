import { createProjectsListHandler } from '../handlers/projects';
import { lambdaHandler } from './aws';

export const handler = lambdaHandler('admin-projects-list', createProjectsListHandler);
