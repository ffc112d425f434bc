import { createProjectsUpdateHandler } from '../handlers/projects';
import { lambdaHandler } from './aws';
import { adminSignIn } from './secrets';

export const handler = lambdaHandler('admin-projects-update', createProjectsUpdateHandler, { ...adminSignIn });
