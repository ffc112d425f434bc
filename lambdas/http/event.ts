import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';

export type HttpEvent = APIGatewayProxyEvent;
export type HttpResult = APIGatewayProxyResult;

/** Case-insensitive header lookup (API Gateway keeps the client's casing). */
export function header(event: Pick<HttpEvent, 'headers'>, name: string): string | undefined {
  const headers = event.headers ?? {};
  const lower = name.toLowerCase();
  for (const [k, v] of Object.entries(headers)) {
    if (k.toLowerCase() === lower && v !== undefined) return v;
  }
  return undefined;
}

export function json(statusCode: number, body: unknown, headers: Record<string, string> = {}): HttpResult {
  return {
    statusCode,
    headers: { 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify(body),
  };
}

export function empty(statusCode: number, headers: Record<string, string> = {}): HttpResult {
  return { statusCode, headers, body: '' };
}
