import { createAuditListHandler } from '../handlers/audit';
import { lambdaHandler } from './aws';
import { secretsManagerAdminToken } from './secrets';

export const handler = lambdaHandler('admin-audit-list', createAuditListHandler, { adminToken: secretsManagerAdminToken });
