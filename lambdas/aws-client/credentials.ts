/**
 * Where the AWS client's credentials come from: given explicitly (the local stack, tests), or the
 * environment variables Lambda sets for the function's role. Nothing else: no profiles, no instance
 * metadata, no SSO (the SDK's default chain does more; a Lambda needs none of it).
 */
export interface Credentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

export type Env = Record<string, string | undefined>;

/** The explicit credentials, else the environment's; missing, an error naming the variables to set. */
export function resolveCredentials(explicit: Credentials | undefined, env: Env = process.env): Credentials {
  if (explicit) return explicit;
  const accessKeyId = env.AWS_ACCESS_KEY_ID;
  const secretAccessKey = env.AWS_SECRET_ACCESS_KEY;
  if (!accessKeyId || !secretAccessKey) {
    throw new Error(
      'AWS credentials missing: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN for temporary credentials; Lambda sets all three), or pass credentials to the client',
    );
  }
  const sessionToken = env.AWS_SESSION_TOKEN;
  return sessionToken ? { accessKeyId, secretAccessKey, sessionToken } : { accessKeyId, secretAccessKey };
}
