/**
 * The front page and the docs (issue 31): every link works where it is read — the README on the Marketplace
 * page and in VS Code's Extensions view (absolute links, or files the package contains), the docs on GitHub —
 * and the README stays a front page (short, install on its first screen). scripts/linkCheck.cjs does the
 * check; `npm run package` runs it over the README inside the built .vsix.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '../../..');
const { checkRepo, checkVsix, slug } = require(path.join(ROOT, 'scripts/linkCheck.cjs')) as {
  checkRepo: (root: string) => string[];
  checkVsix: (file: string, root: string) => Promise<string[]>;
  slug: (s: string) => string;
};

/** A throw-away repository with the given files. */
function repo(files: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rawr-links-'));
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), text);
  }
  return dir;
}

describe('links in README.md, CONTRIBUTING.md and docs/', () => {
  it('every link of this repository resolves (npm run package checks the .vsix too)', () => {
    assert.deepEqual(checkRepo(ROOT), []);
  });

  it('the README is a front page: at most 1,500 words, the install command on its first screen', () => {
    const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    const words = readme.split(/\s+/).filter(Boolean).length;
    assert.ok(words <= 1500, `README.md has ${words} words`);
    const firstScreen = readme.split('\n').slice(0, 40).join('\n');
    assert.match(firstScreen, /code --install-extension rawr\.vsix/);
  });

  it('slugs headings the way GitHub does', () => {
    assert.equal(
      slug('Use it with an OpenAI-compatible endpoint (a local server, no Copilot)'),
      'use-it-with-an-openai-compatible-endpoint-a-local-server-no-copilot',
    );
    assert.equal(slug('The offline demo (npm start)'), 'the-offline-demo-npm-start');
  });

  it('reports what would break: a file the package lacks, a missing anchor or repository file, http, a link in a doc to nothing', () => {
    const dir = repo({
      '.vscodeignore': '**\n!README.md\n!docs/images/shown.png\n',
      'README.md': [
        '# Title',
        '[ok](#title) [bad anchor](#nowhere) ![ok](docs/images/shown.png) ![not shipped](docs/images/hidden.png)',
        '[guide](https://github.com/rawr-ai/rawr/blob/main/docs/guide.md#usage) [gone](https://github.com/rawr-ai/rawr/blob/main/docs/gone.md)',
        '[bad section](https://github.com/rawr-ai/rawr/blob/main/docs/guide.md#nope) [insecure](http://example.com)',
        '[other site](https://example.com/x) [issues](https://github.com/rawr-ai/rawr/issues)',
        '',
        '```',
        '[in a code block](nowhere.md)',
        '```',
      ].join('\n'),
      'docs/guide.md': '# Guide\n\n## Usage\n\n[back](../README.md#title) [missing](other.md) [repo file](../.vscodeignore)\n',
      'docs/images/shown.png': 'png',
      'docs/images/hidden.png': 'png',
    });
    const problems = checkRepo(dir).map((p) => p.replace(/^(\S+?:\d+): (\S+): .*$/, '$1 $2'));
    assert.deepEqual(problems.sort(), [
      'README.md:2 #nowhere',
      'README.md:2 docs/images/hidden.png',
      'README.md:3 https://github.com/rawr-ai/rawr/blob/main/docs/gone.md',
      'README.md:4 http://example.com',
      'README.md:4 https://github.com/rawr-ai/rawr/blob/main/docs/guide.md#nope',
      'docs/guide.md:5 other.md',
    ]);
  });

  it('inside a .vsix: a relative link must name an entry of the package (vsce renames LICENSE to LICENSE.txt)', async () => {
    const yazl = require('yazl') as { ZipFile: new () => { addBuffer(b: Buffer, n: string): void; end(): void; outputStream: NodeJS.ReadableStream } };
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rawr-vsix-'));
    const file = path.join(dir, 'test.vsix');
    const zip = new yazl.ZipFile();
    zip.addBuffer(Buffer.from('# Rawr\n\n![shot](docs/images/a.png) [license](LICENSE) [changelog](CHANGELOG.md) [top](#rawr)\n'), 'extension/readme.md');
    zip.addBuffer(Buffer.from('png'), 'extension/docs/images/a.png');
    zip.addBuffer(Buffer.from('# Changelog'), 'extension/changelog.md');
    zip.addBuffer(Buffer.from('MIT'), 'extension/LICENSE.txt');
    zip.end();
    await new Promise<void>((resolve, reject) => zip.outputStream.pipe(fs.createWriteStream(file)).on('close', resolve).on('error', reject));
    const problems = await checkVsix(file, ROOT);
    assert.equal(problems.length, 1, problems.join('\n'));
    assert.match(problems[0]!, /readme\.md:3: LICENSE: LICENSE is not in the package/);
  });
});
