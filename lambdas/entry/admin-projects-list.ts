import { createProjectsListHandler } from '../handlers/projects';
import { awsDeps } from './aws';

export const handler = createProjectsListHandler(awsDeps(['projects', 'adminToken']));
