import { CliError } from "./cli-error.js";
import type { CommandContext } from "./context.js";
import { didYouMean, nearest } from "./suggest.js";

/**
 * A NotFound for a work key (`details.work`) gains the project's nearest work keys, as
 * `details.suggestions` and as the `next:` line, when there are any: `W-22` finds `W-2`, `w-2`
 * finds `W-2`. The message and the other details stay the tool's own. Local mode only (the
 * project's own ledger lists its work; a shared service has no tool for the whole list), and
 * only when the run already opened the ledger: a NotFound before that is not about a key.
 */
export async function withWorkSuggestions(
  error: CliError,
  context: CommandContext,
): Promise<CliError> {
  const work = error.details?.["work"];
  if (error.code !== "NotFound" || typeof work !== "string") return error;
  if (error.details?.["suggestions"] !== undefined) return error;
  const opened = context.openedBackend();
  if (opened === undefined) return error;
  let keys: string[];
  try {
    const backend = await opened;
    if (backend.kind !== "local") return error;
    const { items } = await backend.call("awr_work_list", {});
    keys = (items as { work: string }[]).map((item) => item.work).filter((key) => key !== work);
  } catch {
    return error; // The list is a courtesy: the error itself is what the run reports.
  }
  const suggestions = nearest(work, keys);
  if (suggestions.length === 0) return error;
  return new CliError(error.code, error.message, {
    details: { ...error.details, suggestions },
    exitCode: error.exitCode,
    cause: error,
    ...(error.result === undefined ? {} : { result: error.result }),
    ...(error.display === undefined ? {} : { display: error.display }),
    next: `${didYouMean(suggestions)} \`awr work list\` lists every work item.`,
  });
}
