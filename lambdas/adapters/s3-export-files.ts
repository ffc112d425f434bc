/**
 * People's export files on AWS (docs/decisions/erasure.md "Export"): exports/project_id=<id>/<export
 * id>.ndjson in the raw bucket (SSE-S3 like every object there; the bucket's lifecycle rule deletes
 * them after EXPORT_FILE_DAYS). The download link is an S3 presigned GET URL signed when the API
 * shows the export, valid EXPORT_LINK_SECONDS: a URL signed with a Lambda role's temporary credentials
 * stops working when they expire, so a short link signed at each read, never one stored.
 */
import { DeleteObjectsCommand, GetObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { exportFileKey } from '../contract/landing';
import { EXPORT_LINK_SECONDS } from '../domain/person-export';
import type { DownloadLink, ExportFiles } from '../ports';

export class S3ExportFiles implements ExportFiles {
  constructor(
    private readonly s3: S3Client,
    private readonly bucket: string,
  ) {}

  async put(projectId: string, exportId: string, body: string): Promise<void> {
    await this.s3.send(
      new PutObjectCommand({
        Bucket: this.bucket,
        Key: exportFileKey(projectId, exportId),
        Body: body,
        ContentType: 'application/x-ndjson; charset=utf-8',
        // The browser saves it under this name rather than showing it.
        ContentDisposition: `attachment; filename="tally-export-${exportId}.ndjson"`,
      }),
    );
  }

  async remove(projectId: string, exportIds: readonly string[]): Promise<number> {
    if (exportIds.length === 0) return 0;
    const out = await this.s3.send(
      new DeleteObjectsCommand({ Bucket: this.bucket, Delete: { Objects: exportIds.map((id) => ({ Key: exportFileKey(projectId, id) })), Quiet: false } }),
    );
    if (out.Errors?.length) throw new Error(`S3 refused to delete ${out.Errors.length} export file(s): ${out.Errors.map((e) => e.Code).join(', ')}`);
    return out.Deleted?.length ?? 0;
  }

  async link(projectId: string, exportId: string, nowMs: number): Promise<DownloadLink> {
    const url = await getSignedUrl(this.s3, new GetObjectCommand({ Bucket: this.bucket, Key: exportFileKey(projectId, exportId) }), {
      expiresIn: EXPORT_LINK_SECONDS,
      signingDate: new Date(nowMs),
    });
    return { url, expires_at: new Date(nowMs + EXPORT_LINK_SECONDS * 1000).toISOString() };
  }
}
