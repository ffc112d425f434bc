import { createProjectsCreateHandler } from '../handlers/projects';
import { lambdaHandler } from './aws';
import { adminSignIn } from './secrets';

export const handler = lambdaHandler('admin-projects-create', createProjectsCreateHandler, { ...adminSignIn });
