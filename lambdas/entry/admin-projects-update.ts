import { createProjectsUpdateHandler } from '../handlers/projects';
import { lambdaHandler } from './aws';
import { adminWiring } from './admin-wiring';

export const handler = lambdaHandler('admin-projects-update', createProjectsUpdateHandler, { ...adminWiring });
