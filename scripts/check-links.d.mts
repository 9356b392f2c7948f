/** Types of `check-links.mjs`, for the test that runs it. */
export declare function documents(root: string): Promise<string[]>;
export declare function checkLinks(root?: string): Promise<string[]>;
export declare function links(text: string): { target: string; line: number }[];
export declare function headingAnchors(text: string): Set<string>;
