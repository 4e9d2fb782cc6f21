/**
 * Issue 25: what ComfyUI said when a prompt failed (`execution_error`'s exception message and
 * traceback), kept with the attempt so the drawer can show it. Both bounded by the writer
 * (pools/comfy-lan/error-detail.ts), NULL for attempts that did not end in an execution error.
 * APPEND-ONLY: never edit once shipped.
 */
export const sql = `
ALTER TABLE attempts ADD COLUMN exception_message TEXT;
ALTER TABLE attempts ADD COLUMN traceback TEXT;
`;
