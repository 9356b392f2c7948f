// Types of image-facts.js, for the TypeScript tests that import it.
import type { AppFile, FileInput } from '../src/index.js';

export declare function imageFacts(image: FileInput): {
  summary: string;
  details: Record<string, unknown>;
  identicon: AppFile;
};
export declare function readImageHeader(bytes: Buffer): {
  format: string;
  width: number | null;
  height: number | null;
};
export declare function identicon(seed: Buffer): AppFile;
