export declare function notFiniteFigure(rows: ReadonlyArray<Record<string, unknown>>): string | undefined;
export declare function writeRowsFile(rows: ReadonlyArray<Record<string, unknown>>, file: string): Promise<number>;
