import * as assert from 'node:assert/strict';
import { detectMarkers } from '../../src/core/signals/markers';
import { shipped } from '../support/engine';

const kinds = (text: string, work = true) => detectMarkers(text, shipped.settings, work).map((b) => b.kind);

describe('done / concluding / topic-shift markers (from the YAML)', () => {
  const cases: Array<[string, boolean, string[]]> = [
    ['All done! The importer handles both formats and the tests pass.', true, ['agent_done']],
    ['The task is complete: 42 tests pass.', true, ['agent_done']],
    ['In summary, the parser now streams lines.', true, ['concluding']],
    ['Moving on to phase 3: the CLI.', true, ['topic_shift']],
    ['All done. In summary: X. Moving on to the docs.', true, ['agent_done', 'concluding', 'topic_shift']],
    ['All done!', false, []], // no work activity in the turn: a chatty answer is not a boundary
    ['I am not done yet; the task is incomplete.', true, []],
    ['Look at `all done` in the log.', true, []], // quoted code is not an announcement
    ['```\necho "task complete"\n```\nRunning the tests now.', true, []],
    ['overall donefully', true, []],
    ['The task is completely different from what I expected.', true, []], // a marker must end where a word ends
    ['ALL DONE', true, ['agent_done']],
    ['Everything is\ndone.', true, ['agent_done']],
    ['', true, []],
  ];
  for (const [text, work, expected] of cases) it(`${JSON.stringify(text.slice(0, 40))} (work=${work})`, () => assert.deepEqual(kinds(text, work), expected));

  it('uses the markers from settings, not built-ins', () => {
    const s = { ...shipped.settings, agent_done_markers: ['fertig'] };
    assert.deepEqual(
      detectMarkers('Alles fertig.', s, true).map((b) => b.kind),
      ['agent_done'],
    );
    assert.deepEqual(
      detectMarkers('All done.', s, true).map((b) => b.kind),
      [],
    );
  });
});
