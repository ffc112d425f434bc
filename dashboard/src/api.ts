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

  /**
   * The API's message for one field, for display next to that input: from details[].field, else from
   * the admin API's "<field>: <message>; …" error text (a field path such as "allowed_origins.2"
   * counts for "allowed_origins"). A message starting with the field's API name says it in words
   * instead ("goal_event must not be empty" → "Goal event must not be empty").
   */
  forField(field: string): string | undefined {
    const detail = this.details.find((d) => d.field === field)?.message;
    if (detail !== undefined) return inWords(detail, field);
    const parts = this.fieldMessages().filter((p) => p.field === field || p.field.startsWith(`${field}.`));
    return parts.length ? parts.map((p) => inWords(p.message, field)).join('; ') : undefined;
  }

  /** The message without the parts forField gives to one of `fields` (for a form-level error), or undefined if nothing is left. */
  apartFrom(fields: string[]): string | undefined {
    if (fields.some((f) => this.details.some((d) => d.field === f))) return undefined;
    const parts = this.fieldMessages();
    if (!parts.length) return this.message;
    const left = parts.filter((p) => !fields.some((f) => p.field === f || p.field.startsWith(`${f}.`)));
    return left.length ? left.map((p) => inWords(p.message, p.field.split('.')[0]!)).join('; ') : undefined;
  }

  private fieldMessages(): { field: string; message: string }[] {
    if (this.status !== 400) return [];
    const parts = this.message.split('; ').map((part) => /^([A-Za-z_][\w.]*): (.+)$/s.exec(part));
    if (parts.some((m) => m === null)) return [];
    return parts.map((m) => ({ field: m![1]!, message: m![2]! }));
  }
}

/** "goal_event" → "Goal event": an API field name as a person reads it. */
export function fieldInWords(field: string): string {
  const words = field.replace(/_/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** A message that starts with the field's API name (or, for `series.0.event`, its last part), with the name in words. */
function inWords(message: string, field: string): string {
  const name = message.startsWith(`${field} `) ? field : field.split('.').at(-1)!;
  return message.startsWith(`${name} `) ? `${fieldInWords(name)}${message.slice(name.length)}` : message;
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
