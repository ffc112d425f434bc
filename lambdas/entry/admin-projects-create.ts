import { createProjectsCreateHandler } from '../handlers/projects';
import { lambdaHandler } from './aws';

export const handler = lambdaHandler('admin-projects-create', createProjectsCreateHandler);
