import { createAuditListHandler } from '../handlers/audit';
import { lambdaHandler } from './aws';
import { adminWiring } from './admin-wiring';

export const handler = lambdaHandler('admin-audit-list', createAuditListHandler, { ...adminWiring });
