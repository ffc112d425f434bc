export declare const textModule: (text: string) => string;
export declare const isSqlFile: (urlOrPath: string) => boolean;
export declare function load(url: string, context: unknown, nextLoad: (url: string, context: unknown) => unknown): Promise<unknown>;
