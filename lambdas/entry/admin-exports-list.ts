import { createExportsListHandler } from '../handlers/exports';
import { lambdaHandler } from './aws';
import { s3ExportFiles } from './export-files';
import { adminWiring } from './admin-wiring';

export const handler = lambdaHandler('admin-exports-list', createExportsListHandler, { ...adminWiring, exportFiles: s3ExportFiles });
