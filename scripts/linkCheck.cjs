// The link check over README.md, CONTRIBUTING.md, CHANGELOG.md and docs/*.md (issue 31), and over the README
// inside a built .vsix. Links are read with markdown-it (so a link in a code block is not a link), then:
//   - `#anchor`: a heading of the same file (GitHub's slugs);
//   - https://github.com/rawr-ai/rawr/blob|tree/main/<path>[#anchor]: <path> exists in this repository (and
//     the anchor in it) — the README's links to docs/ must work on the Marketplace page and in VS Code's
//     Extensions view, where only absolute links and files of the package resolve;
//   - a relative path: in README.md, a file the package contains (.vscodeignore lets it through; in a .vsix,
//     an entry of the zip); elsewhere, a file of the repository;
//   - http:// (not https) is reported: vsce refuses it and the Marketplace shows it as insecure.
// Other absolute URLs are not fetched (no network in the tests).
//
//   node scripts/linkCheck.cjs [--vsix rawr.vsix]   (exit 1 and one line per broken link)
'use strict';

const fs = require('node:fs');
const path = require('node:path');
const MarkdownIt = require('markdown-it');
const { minimatch } = require('minimatch');

const REPO = 'https://github.com/rawr-ai/rawr/';
const md = new MarkdownIt({ html: false });

/** GitHub's heading anchor: lower case, punctuation dropped, spaces to dashes; repeats get -1, -2… */
function slug(text) {
  return text
    .toLowerCase()
    .trim()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function inlineText(tok) {
  return (tok.children ?? []).map((c) => (c.type === 'text' || c.type === 'code_inline' ? c.content : '')).join('');
}

/** The links (href, line) and heading anchors of a Markdown text. */
function parse(text) {
  const tokens = md.parse(text, {});
  const links = [];
  const anchors = new Set();
  const seen = new Map();
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    if (t.type === 'heading_open') {
      const base = slug(inlineText(tokens[i + 1]));
      const n = seen.get(base) ?? 0;
      seen.set(base, n + 1);
      anchors.add(n ? `${base}-${n}` : base);
    }
    if (t.type !== 'inline') continue;
    let line = (t.map?.[0] ?? 0) + 1; // the block's first line, plus the line breaks before the link
    for (const c of t.children ?? []) {
      if (c.type === 'softbreak' || c.type === 'hardbreak') line++;
      const href = c.type === 'link_open' ? c.attrGet('href') : c.type === 'image' ? c.attrGet('src') : null;
      if (href) links.push({ href, line });
    }
  }
  return { links, anchors };
}

/** Whether .vscodeignore lets `rel` into the package (the last matching line wins; `!` lets it through). */
function shippedBy(ignoreText) {
  const rules = ignoreText
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'))
    .map((l) => (l.startsWith('!') ? { keep: true, glob: l.slice(1) } : { keep: false, glob: l }));
  return (rel) => {
    let shipped = true;
    for (const r of rules) if (minimatch(rel, r.glob, { dot: true })) shipped = r.keep;
    return shipped;
  };
}

/**
 * Problems of one Markdown file. `exists(rel)` says whether a relative target resolves (repository file, or
 * package entry); `repoText(rel)` reads a repository file for an absolute link's anchor (undefined: absent).
 */
function checkText(name, text, { dir, exists, repoText }) {
  const problems = [];
  const { links, anchors } = parse(text);
  const anchorsOf = (rel) => {
    if (rel === name) return anchors;
    const t = repoText(rel);
    return t === undefined ? undefined : parse(t).anchors;
  };
  for (const { href, line } of links) {
    const at = `${name}:${line}: ${href}`;
    if (href.startsWith('mailto:')) continue;
    if (href.startsWith('#')) {
      if (!anchors.has(decodeURIComponent(href.slice(1)))) problems.push(`${at}: no heading with this anchor`);
      continue;
    }
    if (/^http:\/\//i.test(href)) {
      problems.push(`${at}: use https`);
      continue;
    }
    if (href.startsWith(REPO)) {
      const m = /^(?:blob|tree)\/main\/([^#?]+)(?:#(.*))?$/.exec(href.slice(REPO.length));
      if (!m) continue; // releases, issues, the repository itself
      const rel = decodeURIComponent(m[1]).replace(/\/$/, '');
      const text = repoText(rel);
      if (text === undefined && !repoText.isDir?.(rel)) problems.push(`${at}: ${rel} is not in the repository`);
      else if (m[2] && text !== undefined && !anchorsOf(rel).has(decodeURIComponent(m[2]))) problems.push(`${at}: no heading #${m[2]} in ${rel}`);
      continue;
    }
    if (/^[a-z][a-z0-9+.-]*:/i.test(href)) continue; // another site: not fetched
    const [target, anchor] = href.split('#');
    const rel = path.posix.normalize(path.posix.join(dir, decodeURIComponent(target)));
    if (!exists(rel)) {
      problems.push(`${at}: ${rel} is not ${name === 'README.md' || name.endsWith('readme.md') ? 'in the package' : 'in the repository'}`);
      continue;
    }
    if (anchor && rel.endsWith('.md')) {
      const a = anchorsOf(rel);
      if (a && !a.has(decodeURIComponent(anchor))) problems.push(`${at}: no heading #${anchor} in ${rel}`);
    }
  }
  return problems;
}

/** The Markdown files the check covers, relative to the root. */
function markdownFiles(root) {
  const top = ['README.md', 'CONTRIBUTING.md', 'CHANGELOG.md'].filter((f) => fs.existsSync(path.join(root, f)));
  const docs = fs
    .readdirSync(path.join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`);
  return [...top, ...docs];
}

/** Every problem over the repository's Markdown (the README judged as the package shows it). */
function checkRepo(root) {
  const isFile = (rel) => {
    try {
      return fs.statSync(path.join(root, rel)).isFile();
    } catch {
      return false;
    }
  };
  const repoText = (rel) => (isFile(rel) ? fs.readFileSync(path.join(root, rel), 'utf8') : undefined);
  repoText.isDir = (rel) => {
    try {
      return fs.statSync(path.join(root, rel)).isDirectory();
    } catch {
      return false;
    }
  };
  const shipped = shippedBy(fs.readFileSync(path.join(root, '.vscodeignore'), 'utf8'));
  const problems = [];
  for (const name of markdownFiles(root)) {
    const inPackage = name === 'README.md' || name === 'CHANGELOG.md'; // vsce ships both and shows the README
    const exists = inPackage ? (rel) => isFile(rel) && shipped(rel) : isFile;
    problems.push(...checkText(name, fs.readFileSync(path.join(root, name), 'utf8'), { dir: path.posix.dirname(name), exists, repoText }));
  }
  return problems;
}

/** The entries of a zip, and a reader of one entry's text (yauzl: vsce's own zip reader). */
function readZip(file) {
  const yauzl = require('yauzl');
  return new Promise((resolve, reject) => {
    yauzl.open(file, { lazyEntries: true }, (err, zip) => {
      if (err) return reject(err);
      const names = new Set();
      const texts = new Map();
      zip.on('entry', (e) => {
        names.add(e.fileName);
        if (!/\.md$/i.test(e.fileName)) return zip.readEntry();
        zip.openReadStream(e, (err2, s) => {
          if (err2) return reject(err2);
          const parts = [];
          s.on('data', (b) => parts.push(b));
          s.on('end', () => {
            texts.set(e.fileName, Buffer.concat(parts).toString('utf8'));
            zip.readEntry();
          });
        });
      });
      zip.on('end', () => resolve({ names, texts }));
      zip.on('error', reject);
      zip.readEntry();
    });
  });
}

/** Problems of the README inside a built .vsix: its relative links must be entries of the package. */
async function checkVsix(file, root) {
  const { names, texts } = await readZip(file);
  const readme = texts.get('extension/readme.md') ?? texts.get('extension/README.md');
  if (readme === undefined) return [`${file}: no extension/readme.md in the package`];
  const repoText = (rel) =>
    fs.existsSync(path.join(root, rel)) && fs.statSync(path.join(root, rel)).isFile() ? fs.readFileSync(path.join(root, rel), 'utf8') : undefined;
  // vsce stores README.md and CHANGELOG.md as readme.md and changelog.md.
  const lower = new Set([...names].map((n) => n.toLowerCase()));
  const exists = (rel) => names.has(`extension/${rel}`) || (/^(readme|changelog)\.md$/i.test(rel) && lower.has(`extension/${rel.toLowerCase()}`));
  return checkText(`${path.basename(file)}:extension/readme.md`, readme, { dir: '.', exists, repoText });
}

module.exports = { slug, parse, shippedBy, checkText, checkRepo, checkVsix, markdownFiles };

if (require.main === module) {
  const root = path.resolve(__dirname, '..');
  const i = process.argv.indexOf('--vsix');
  (async () => {
    const problems = i > 0 ? await checkVsix(path.resolve(process.argv[i + 1]), root) : checkRepo(root);
    for (const p of problems) console.error(p);
    if (problems.length) process.exit(1);
    console.log(i > 0 ? `links: the README in ${process.argv[i + 1]} is clean` : `links: ${markdownFiles(root).length} Markdown files are clean`);
  })().catch((e) => {
    console.error(`links: ${e.message}`);
    process.exit(2);
  });
}
