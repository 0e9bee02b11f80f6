import { connectResident } from '../../src/cli/hooks/resident';
import type { DoorAddress, HookRun } from '../../src/cli/hooks/types';

/** One run handed to the engine behind `door`, as the Node hook hands it (tests only: the hook asks through main.ts). */
export const askResident = (door: DoorAddress, run: HookRun, timeoutMs?: number) => connectResident(door, timeoutMs).ask(run);
