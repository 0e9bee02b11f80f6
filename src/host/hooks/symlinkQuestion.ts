/**
 * The editor's `--follow-symlinks`. A settings file kept in a dotfiles repository is often a symlink (or
 * sits in a symlinked `.claude/`); the CLI writes through it only with `--follow-symlinks`, a flag a
 * person in VS Code cannot pass. So before Install or Remove writes, the editor names each symlink on the
 * way and asks whether to write through it (the target changes, the link stays a link); dismissing the
 * question writes nothing. A refusal that reaches a notification anyway (a link made meanwhile) says what
 * to do in the editor, not the CLI flag.
 */
import * as vscode from 'vscode';
import { symlinkOnTheWay } from '../../core/hooks/shared/configFile';

export const WRITE_THROUGH = 'Write through the symlink';

/** A file a command writes, and the folder it must stay in unless a symlink is followed. */
export interface Written {
  file: string;
  within?: string;
}

/** The symlinks on the way to files a command writes, in words, and where they lead. */
export interface OnTheWay {
  named: string;
  targets: string[];
}

/** The symlinks on the way to `files` (symlinkOnTheWay); undefined when there are none. */
export function symlinksOnTheWay(files: Written[]): OnTheWay | undefined {
  const links = files.flatMap((f) => {
    try {
      return [symlinkOnTheWay(f.file, f.within)].filter((l) => l !== undefined);
    } catch {
      return []; // the folder is gone: the command's own read says so
    }
  });
  if (links.length === 0) return undefined;
  return {
    named: links.map((l) => (l.folder ? `${l.link} leads to ${l.to} through a symlink` : `${l.link} is a symlink to ${l.to}`)).join('; '),
    targets: links.map((l) => l.to),
  };
}

/** What writing through them does, and how to keep rawr out of their targets instead (a question's sentences). */
export const throughLinks = (on: OnTheWay, verb: 'install' | 'remove'): string =>
  `${verb === 'install' ? "rawr's hooks go into" : "rawr's entries are taken out of"} ${on.targets.join(', ')}, and the link stays a link. To keep rawr out of the link's target, cancel, replace the link with a copy of the file, and run the command again.`;

/**
 * Whether to follow the symlinks on the way to `files`: false when there are none, the person's answer
 * when there are (undefined: they dismissed the question, nothing is written). `given` (scripted use) decides without asking.
 */
export async function followSymlinksFor(files: Written[], verb: 'install' | 'remove', given?: boolean): Promise<boolean | undefined> {
  if (given !== undefined) return given;
  const on = symlinksOnTheWay(files);
  if (on === undefined) return false;
  const pick = await vscode.window.showWarningMessage(`${on.named}. Write through it? ${throughLinks(on, verb)}`, { modal: true }, WRITE_THROUGH);
  return pick === WRITE_THROUGH ? true : undefined;
}

/**
 * A command's own question with the symlink question folded in (one question, not two in a row): the
 * symlinks on the way to `files` are named after `question`, and any answer but a dismissal writes through
 * them. `given` (scripted use) decides about the links without naming them. Undefined: dismissed, nothing written.
 */
export async function askWithLinks<B extends string>(
  question: string,
  files: Written[],
  verb: 'install' | 'remove',
  given: boolean | undefined,
  ...answers: B[]
): Promise<{ answer: B; followSymlinks: boolean } | undefined> {
  const on = given === undefined ? symlinksOnTheWay(files) : undefined;
  const through = on ? ` ${on.named}: ${throughLinks(on, verb)}` : '';
  const answer = await vscode.window.showWarningMessage(`${question}${through}`, { modal: true }, ...answers);
  if (answer === undefined) return undefined;
  return { answer, followSymlinks: given ?? on !== undefined };
}

/**
 * A command's one question before it writes: its own (`ask`: the question and its answers, the links folded
 * in: askWithLinks) when it has one, else only the symlink question (followSymlinksFor; none without links).
 * Undefined: dismissed, nothing written; `answer` is absent when the command had no question of its own.
 */
export async function askOrFollow<B extends string>(
  ask: { question: string; answers: B[] } | undefined,
  files: Written[],
  verb: 'install' | 'remove',
  given: boolean | undefined,
): Promise<{ answer?: B; followSymlinks: boolean } | undefined> {
  if (ask) return askWithLinks(ask.question, files, verb, given, ...ask.answers);
  const followSymlinks = await followSymlinksFor(files, verb, given);
  return followSymlinks === undefined ? undefined : { followSymlinks };
}

/** A refusal's CLI hint in the editor's words (see the file comment). */
export const inEditorWords = (line: string): string =>
  line.replace(
    /\(--follow-symlinks ([^)]*)\)/g,
    `(run the command again and choose "${WRITE_THROUGH}", which $1, or replace the link with a copy of the file)`,
  );
