/**
 * A node:http proxy in front of a DynamoDB endpoint (dynalite) that loses answers on purpose: for a
 * request that a rule picks (its operation, from X-Amz-Target, and optionally its body), it forwards
 * the request, lets DynamoDB apply it, and then destroys the client's socket instead of passing the
 * answer back (the client sees ECONNRESET, which the AWS SDK retries), or answers 500. So a
 * test sees what a client does when its write landed but it never heard so. Every other request
 * passes through unchanged.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface LoseRule {
  /** The operation, as X-Amz-Target names it after the dot: PutItem, UpdateItem. */
  operation: string;
  /** Only requests whose (wire-format) JSON body passes; default every request of the operation. */
  when?: (body: Record<string, any>) => boolean;
  /** How many answers of matching requests to lose; default 1. */
  times?: number;
  /**
   * 'after' (default): the request reaches DynamoDB, its answer is lost. 'before': the request is
   * dropped without reaching DynamoDB (a retry is then its first arrival).
   */
  lose?: 'after' | 'before';
  /** 'reset' (default): the client's socket is destroyed. 'internal-error': a 500 InternalServerError. */
  as?: 'reset' | 'internal-error';
  /** Runs once the request is lost and before the client hears anything: another writer acting meanwhile. */
  meanwhile?: () => Promise<void>;
}

export interface AnswerLosingProxy {
  /** The endpoint to give the document client instead of dynalite's. */
  endpoint: string;
  /** Adds a rule; rules are tried in the order added. */
  lose(rule: LoseRule): void;
  /** Answers lost so far (rules that fired). */
  readonly lost: number;
  /** Requests seen per operation. */
  readonly seen: Record<string, number>;
  close(): Promise<void>;
}

export async function startAnswerLosingProxy(target: string): Promise<AnswerLosingProxy> {
  const upstream = new URL(target);
  const rules: Array<LoseRule & { left: number }> = [];
  const seen: Record<string, number> = {};
  let lost = 0;

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const operation = String(req.headers['x-amz-target'] ?? '').split('.')[1] ?? '';
      seen[operation] = (seen[operation] ?? 0) + 1;
      const rule = rules.find((r) => r.left > 0 && r.operation === operation && (!r.when || r.when(JSON.parse(body.toString('utf8') || '{}'))));
      if (rule) rule.left--;
      const fail = async () => {
        lost++;
        await rule!.meanwhile?.();
        if (rule!.as === 'internal-error') {
          res.writeHead(500, { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-errortype': 'InternalServerError' });
          res.end(JSON.stringify({ __type: 'com.amazonaws.dynamodb.v20120810#InternalServerError', message: 'answer lost by the test proxy' }));
        } else {
          req.socket.destroy();
        }
      };
      if (rule?.lose === 'before') {
        void fail();
        return;
      }
      const forward = http.request({ hostname: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: req.headers }, (answer) => {
        const parts: Buffer[] = [];
        answer.on('data', (c: Buffer) => parts.push(c));
        answer.on('end', () => {
          if (rule) return void fail();
          res.writeHead(answer.statusCode ?? 500, answer.headers);
          res.end(Buffer.concat(parts));
        });
      });
      forward.on('error', () => req.socket.destroy());
      forward.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    endpoint: `http://127.0.0.1:${port}`,
    lose: (rule) => rules.push({ ...rule, left: rule.times ?? 1 }),
    get lost() {
      return lost;
    },
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
