import { createExportsGetHandler } from '../handlers/exports';
import { lambdaHandler } from './aws';
import { s3ExportFiles } from './export-files';
import { adminSignIn } from './secrets';

export const handler = lambdaHandler('admin-exports-get', createExportsGetHandler, { ...adminSignIn, exportFiles: s3ExportFiles });
