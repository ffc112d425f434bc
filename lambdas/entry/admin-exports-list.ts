import { createExportsListHandler } from '../handlers/exports';
import { lambdaHandler } from './aws';
import { s3ExportFiles } from './export-files';
import { adminSignIn } from './secrets';

export const handler = lambdaHandler('admin-exports-list', createExportsListHandler, { ...adminSignIn, exportFiles: s3ExportFiles });
