import { pickAnnotations } from '../../tool/annotations.js';
import type { TaskSupport } from '../../types/index.js';
import { annotationsToColumn } from '../annotations.js';
import type { ToolsetMember } from './types.js';

/** A row of the members table. */
export interface MemberRow {
  toolset_id: string;
  position: number;
  app_id: string;
  tool_name: string | null;
  description: string | null;
  /** JSON text; NULL: the app's own server's, or none. */
  parameters: string | null;
  annotations: string | null;
  task_support: TaskSupport | null;
}

/** The `app_id` a toolset's row holds (see the `0012_create_toolsets` migration): its own, unique. */
export const toolsetAppId = (toolsetId: string): string => `toolset:${toolsetId}`;

export function memberRows(toolsetId: string, members: readonly ToolsetMember[]): MemberRow[] {
  return members.map((member, position) => ({
    toolset_id: toolsetId,
    position,
    app_id: member.appId,
    tool_name: member.toolName ?? null,
    description: member.description ?? null,
    parameters: member.parameters ? JSON.stringify(member.parameters) : null,
    annotations: member.annotations ? (annotationsToColumn(member.annotations) ?? '{}') : null,
    task_support: member.taskSupport ?? null,
  }));
}

export function toMember(row: MemberRow): ToolsetMember {
  const member: ToolsetMember = { appId: row.app_id };
  if (row.tool_name !== null) member.toolName = row.tool_name;
  if (row.description !== null) member.description = row.description;
  if (row.parameters !== null) member.parameters = JSON.parse(row.parameters) as Record<string, string>;
  // `{}` is kept: a member that clears the hints its app's own server gives.
  if (row.annotations !== null) member.annotations = pickAnnotations(JSON.parse(row.annotations)) ?? {};
  if (row.task_support !== null) member.taskSupport = row.task_support;
  return member;
}

/** A copy that shares nothing mutable with `member`. */
export function copyMember(member: ToolsetMember): ToolsetMember {
  const copy: ToolsetMember = { ...member };
  if (member.parameters) copy.parameters = { ...member.parameters };
  if (member.annotations) copy.annotations = { ...member.annotations };
  return copy;
}
