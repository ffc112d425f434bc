/**
 * The export files on S3 and their presigned links (adapters/s3-export-files.ts): only the export
 * routes import this, so the other bundles carry neither the S3 client nor the presigner.
 */
import { S3Client } from '@aws-sdk/client-s3';
import { S3ExportFiles } from '../adapters/s3-export-files';
import type { Wiring } from './aws';

export const s3ExportFiles: Wiring<'exportFiles'> = (env) => new S3ExportFiles(new S3Client({}), env.EXPORTS_BUCKET);
