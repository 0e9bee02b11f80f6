/** The hook engine, bundled apart as dist/hookEngine.js for dist/hook.js (hookEntry.ts) to load only when a hook has something to do. */
export { hooksMain, runHookEvent } from './hooks';
