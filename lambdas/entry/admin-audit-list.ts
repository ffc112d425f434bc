import { createAuditListHandler } from '../handlers/audit';
import { lambdaHandler } from './aws';
import { adminSignIn } from './secrets';

export const handler = lambdaHandler('admin-audit-list', createAuditListHandler, { ...adminSignIn });
