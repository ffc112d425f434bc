import { createProjectsListHandler } from '../handlers/projects';
import { lambdaHandler } from './aws';
import { adminSignIn } from './secrets';

export const handler = lambdaHandler('admin-projects-list', createProjectsListHandler, { ...adminSignIn });
