/**
 * Expense Approval: a workflow that waits for a person (docs/asking-a-person.md). It asks whoever
 * is behind the MCP client to approve or reject an expense, with a comment, and answers with the
 * decision. A client that cannot ask a person (it did not declare elicitation) gets an error result
 * that says so, at once: `run.ask` rejects and the package turns that into the result.
 */

/** @type {import('express-app-mcp').HostApp} */
export const EXPENSE_APPROVAL_APP = {
  id: 'expense-approval',
  name: 'Expense Approval',
  mode: 'workflow',
  description:
    'Asks a person to approve or reject an expense, with a comment, and answers with the decision. The client must be able to ask its user (MCP elicitation).',
  inputForm: [
    { type: 'text-input', variable: 'employee', label: 'Employee', required: true, max_length: 100 },
    { type: 'number', variable: 'amount', label: 'Amount', required: true },
    {
      type: 'text-input',
      variable: 'currency',
      label: 'Currency',
      required: false,
      default: 'EUR',
      max_length: 3,
    },
    { type: 'paragraph', variable: 'reason', label: 'Reason', required: false, max_length: 500 },
  ],
  outputs: [
    {
      variable: 'status',
      type: 'string',
      description: 'approved, rejected, declined (the person would not decide) or unanswered',
    },
    { variable: 'comment', type: 'string', description: "The approver's comment, if any" },
  ],
};

/** What the approver fills in. */
export const EXPENSE_APPROVAL_FIELDS = [
  {
    select: {
      variable: 'decision',
      label: 'Decision',
      options: [
        { value: 'approve', label: 'Approve' },
        { value: 'reject', label: 'Reject' },
      ],
      required: true,
    },
  },
  { paragraph: { variable: 'comment', label: 'Comment', required: false, max_length: 500 } },
];

/** The question the approver reads above the form. */
export function approvalMessage({ employee, amount, currency, reason }) {
  const why = typeof reason === 'string' && reason !== '' ? ` (${reason})` : '';
  return `Approve the expense of ${amount} ${currency ?? 'EUR'} for ${employee}${why}?`;
}

/**
 * Runs Expense Approval once: one question, then the decision.
 * @param {import('express-app-mcp').AppRun} run
 */
export async function expenseApproval(run) {
  const answer = await run.ask({ message: approvalMessage(run.inputs), fields: EXPENSE_APPROVAL_FIELDS });
  if (answer.action === 'accept') {
    const status = answer.values.decision === 'approve' ? 'approved' : 'rejected';
    return { outputs: { status, comment: String(answer.values.comment ?? '') } };
  }
  return { outputs: { status: answer.action === 'decline' ? 'declined' : 'unanswered', comment: '' } };
}
