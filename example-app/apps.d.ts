// Types of apps.js, for the TypeScript tests that import it.
import type { HostApp, LoadApp, RunApp, ToolAnnotations } from '../src/index.js';

export declare const TENANT_ID: 'demo';
export declare const DEMO_APPS: HostApp[];
export declare const DEMO_ANNOTATIONS: Record<string, ToolAnnotations>;
export declare const loadApp: LoadApp;
export declare const runApp: RunApp;

export declare function words(text: string): string[];
export declare function textStats(
  text: string,
  topN?: number,
  language?: string,
): { word_count: number; char_count: number; top_words: string[] };

export declare const FAQ: { keyword: string; answer: string }[];
export declare const FAQ_UNKNOWN: string;
export declare const FRIENDLY_PREFIX: string;
export declare function faqTopics(question: string): string[];
export declare function faqAnswer(question: string, tone?: string, previousTopics?: string[]): string;
export declare const FAQ_MAX_CONVERSATIONS: number;
export declare function faqChat(
  question: string,
  tone: string | undefined,
  conversationId: string | undefined,
): { answer: string; conversationId: string };

export declare function supportDeskAnswer(query: string, tier: string): string;

export declare class CalculationError extends Error {}
export declare function evaluate(expression: string): number;
export declare function calculate(expression: string): string;

export declare function titleCase(text: string): string;

export declare const MANUALS_BASE_URL: string;
export declare function manualOf(product: string): { url: string; name: string; mimeType: string } | null;

export declare const SLOW_REPORT_STAGES: string[];
export declare function slowReport(topic: string): { title: string; sections: string[] };
