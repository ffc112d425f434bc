/**
 * The admin API client: adds the bearer token, turns error bodies into ApiError (the API's own
 * message and per-field details, shown next to the fields), and reports a 401 so the app returns to
 * sign-in with a message.
 */
export interface ErrorDetail {
  field?: string;
  message?: string;
  [key: string]: unknown;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly details: ErrorDetail[] = [],
  ) {
    super(message);
  }

  /** The API's message for one field (details[].field), for display next to that input. */
  forField(field: string): string | undefined {
    return this.details.find((d) => d.field === field)?.message;
  }
}

export interface ApiClient {
  get<T>(path: string): Promise<T>;
  post<T>(path: string, body?: unknown): Promise<T>;
  patch<T>(path: string, body: unknown): Promise<T>;
  delete<T>(path: string): Promise<T>;
}

export function createApiClient(base: string, token: () => string | null, onUnauthorized: (message: string) => void): ApiClient {
  async function request<T>(method: string, path: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = { Authorization: `Bearer ${token() ?? ''}` };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    let response: Response;
    try {
      response = await fetch(new URL(path.replace(/^\//, ''), base), {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch {
      throw new ApiError(0, 'Cannot reach the Tally API. Check your connection and that the server is running.');
    }
    const text = await response.text();
    let parsed: unknown = undefined;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // Not JSON: reported below by status.
    }
    if (response.ok) return parsed as T;
    const errorBody = (parsed ?? {}) as { error?: unknown; details?: unknown };
    const message = typeof errorBody.error === 'string' ? errorBody.error : `The API answered ${response.status}.`;
    const details = Array.isArray(errorBody.details) ? (errorBody.details as ErrorDetail[]) : [];
    if (response.status === 401) onUnauthorized(message);
    throw new ApiError(response.status, message, details);
  }
  return {
    get: (path) => request('GET', path),
    post: (path, body) => request('POST', path, body ?? {}),
    patch: (path, body) => request('PATCH', path, body),
    delete: (path) => request('DELETE', path),
  };
}
