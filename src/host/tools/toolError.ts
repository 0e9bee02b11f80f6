/** A failure the model should see as the tool's answer (clear, actionable), not a crash. */
export class ToolError extends Error {}
