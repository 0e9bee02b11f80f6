/** Counting the models a recording names, for the context-window choice (see ../windows.ts). Pure. */

/** Placeholders that name no model: Claude Code's `<synthetic>` notices, empty strings. */
const isRealModel = (name: string | undefined): name is string => name !== undefined && name.trim() !== '' && !name.startsWith('<');

export function countModel(models: Map<string, number>, name: string | undefined): void {
  if (isRealModel(name)) models.set(name, (models.get(name) ?? 0) + 1);
}

/** Most calls first; ties keep first-seen order. */
export function modelList(models: Map<string, number>): Array<{ name: string; calls: number }> {
  return [...models].map(([name, calls]) => ({ name, calls })).sort((a, b) => b.calls - a.calls);
}
