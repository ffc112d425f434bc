import { createProjectsCreateHandler } from '../handlers/projects';
import { awsDeps } from './aws';

export const handler = createProjectsCreateHandler(awsDeps(['projects', 'adminToken']));
