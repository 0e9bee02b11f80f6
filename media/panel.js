// Rawr compaction panel — the webview side (media/panel.js).
//
// Plain DOM, no framework, on purpose: the panel is a handful of lists and buttons redrawn from one JSON
// view model, so a component library would add weight, a build step for media/ and another thing the
// strict CSP must allow, for no gain. @vscode/webview-ui-toolkit is deprecated; @vscode-elements would be
// the choice for richer controls, but native <button>/<select>/<input> styled with VS Code's theme
// variables are already keyboard-reachable, screen-reader-labelled and native-looking in light, dark and
// high-contrast themes.
//
// Safety: every string that reaches the DOM goes through textContent / createTextNode / setAttribute of
// inert attributes (title, aria-label). There is no innerHTML anywhere in this file. Packets arrive as
// Markdown *blocks* (parsed on the host by src/host/panel/markdown.ts) and are rebuilt here node by node,
// so `<img src=x onerror=…>` or `<script>` in a packet is shown as those characters. The host validates
// every message with zod before posting it; this script still checks the envelope before using it.
//
// State: the UI state (picked thread, noise toggle, open packets) and the last view model are kept with
// setState, so a hidden-then-shown panel (retainContextWhenHidden is off) redraws at once, and the host's
// serializer gets the picked thread back after a window reload.
'use strict';
(function () {
  const vscode = acquireVsCodeApi();
  const saved = vscode.getState() || {};
  const ui = {
    threadId: typeof saved.threadId === 'string' ? saved.threadId : null,
    showNoise: saved.showNoise === true,
    // The packets the user opened or closed by hand, as [`thread/seq`, open] pairs: per thread, so another
    // thread's choices never hide this thread's newest packet (which is open unless the user closed it).
    packetChoices: Array.isArray(saved.packetChoices)
      ? saved.packetChoices.filter((x) => Array.isArray(x) && typeof x[0] === 'string' && typeof x[1] === 'boolean')
      : [],
    instructions: typeof saved.instructions === 'string' ? saved.instructions : '',
  };
  let vm = saved.vm && typeof saved.vm === 'object' ? saved.vm : null;
  let notice = null;

  const app = document.getElementById('app');

  function save() {
    vscode.setState({ threadId: ui.threadId, showNoise: ui.showNoise, packetChoices: ui.packetChoices.slice(-50), instructions: ui.instructions, vm });
  }
  function send(msg) {
    vscode.postMessage(msg);
  }

  // ---- DOM helpers (text only) ------------------------------------------------------------------------
  /** el('div', {class: 'x', 'aria-label': '…'}, child, 'text', …): strings become text nodes. */
  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === undefined || v === null || v === false) continue;
      if (k === 'class') node.className = String(v);
      else if (k === 'onclick' || k === 'onchange' || k === 'oninput' || k === 'onkeydown') node.addEventListener(k.slice(2), v);
      else if (k === 'dataset') Object.assign(node.dataset, v);
      else node.setAttribute(k, v === true ? '' : String(v));
    }
    for (const c of children.flat()) {
      if (c === null || c === undefined || c === false) continue;
      node.appendChild(typeof c === 'string' || typeof c === 'number' ? document.createTextNode(String(c)) : c);
    }
    return node;
  }
  function icon(name, extra) {
    return el('span', { class: `codicon codicon-${name}${extra ? ' ' + extra : ''}`, 'aria-hidden': 'true' });
  }
  function button(label, iconName, onclick, attrs) {
    return el(
      'button',
      Object.assign({ type: 'button', class: 'btn', onclick, 'aria-label': (attrs && attrs['aria-label']) || label }, attrs || {}),
      iconName ? icon(iconName) : null,
      el('span', {}, label),
    );
  }
  function clock(at) {
    if (typeof at !== 'number') return '';
    const d = new Date(at);
    const two = (n) => String(n).padStart(2, '0');
    return `${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}`;
  }
  function tokens(n) {
    return typeof n === 'number' ? n.toLocaleString('en-US') : '?';
  }
  function section(id, title, iconName, ...body) {
    return el('section', { id, 'aria-labelledby': `${id}-h` }, el('h2', { id: `${id}-h` }, icon(iconName), ' ', title), ...body);
  }

  // ---- Markdown blocks → DOM (inert) ---------------------------------------------------------------------
  function inlines(list) {
    const frag = document.createDocumentFragment();
    for (const x of Array.isArray(list) ? list : []) {
      const v = typeof x.v === 'string' ? x.v : '';
      if (x.t === 'bold') frag.appendChild(el('strong', {}, v));
      else if (x.t === 'italic') frag.appendChild(el('em', {}, v));
      else if (x.t === 'code') frag.appendChild(el('code', {}, v));
      // Only http(s)/mailto targets reach here (checked on the host and by the message schema); VS Code opens
      // a webview's link outside it.
      else if (x.t === 'link' && typeof x.href === 'string' && /^(https?:\/\/|mailto:)/i.test(x.href))
        frag.appendChild(el('a', { href: x.href, title: x.href }, v));
      else frag.appendChild(document.createTextNode(v));
    }
    return frag;
  }
  function markdown(blocks) {
    const root = el('div', { class: 'md' });
    for (const b of Array.isArray(blocks) ? blocks : []) {
      switch (b.type) {
        case 'heading': {
          const level = Math.min(6, Math.max(3, (Number(b.level) || 1) + 2)); // h3…h6 inside the panel's outline
          root.appendChild(el(`h${level}`, {}, inlines(b.inlines)));
          break;
        }
        case 'paragraph':
          root.appendChild(el('p', {}, inlines(b.inlines)));
          break;
        case 'quote':
          root.appendChild(el('blockquote', {}, inlines(b.inlines)));
          break;
        case 'code':
          root.appendChild(el('pre', {}, el('code', {}, typeof b.text === 'string' ? b.text : '')));
          break;
        case 'rule':
          root.appendChild(el('hr'));
          break;
        case 'table': {
          const align = Array.isArray(b.align) ? b.align : [];
          // Alignment by class: the CSP allows no inline style attribute.
          const cell = (tag, c, i) => el(tag, ['left', 'center', 'right'].includes(align[i]) ? { class: `align-${align[i]}` } : {}, inlines(c));
          const head = el(
            'tr',
            {},
            (Array.isArray(b.header) ? b.header : []).map((c, i) => cell('th', c, i)),
          );
          const body = (Array.isArray(b.rows) ? b.rows : []).map((r) =>
            el(
              'tr',
              {},
              (Array.isArray(r) ? r : []).map((c, i) => cell('td', c, i)),
            ),
          );
          root.appendChild(el('div', { class: 'md-table' }, el('table', {}, el('thead', {}, head), el('tbody', {}, body))));
          break;
        }
        case 'list': {
          const list = el(b.ordered ? 'ol' : 'ul', b.ordered && b.start !== 1 ? { start: String(b.start) } : {});
          for (const it of Array.isArray(b.items) ? b.items : []) {
            list.appendChild(el('li', { class: `lvl-${Math.min(8, Math.max(0, Number(it.level) || 0))}` }, inlines(it.inlines)));
          }
          root.appendChild(list);
          break;
        }
        default:
          break;
      }
    }
    return root;
  }

  // ---- sections ------------------------------------------------------------------------------------------
  const TIER_LABEL = { early: 'early', ready: 'ready', asap: 'asap', emergency: 'emergency' };

  function header() {
    const threads = vm ? vm.threads : [];
    const pick = el('select', {
      id: 'thread',
      'aria-label': 'Thread',
      onchange: (e) => {
        ui.threadId = e.target.value === '' ? null : e.target.value;
        save();
        send({ type: 'selectThread', threadId: ui.threadId });
      },
    });
    const activeId = vm && vm.threads.find((t) => t.active);
    pick.appendChild(el('option', { value: '' }, `Follow the active @rawr thread${activeId ? ` (${activeId.id})` : ''}`));
    for (const t of threads) pick.appendChild(el('option', { value: t.id }, t.id + (t.active ? ' — active' : '')));
    pick.value = vm && !vm.followActive && vm.threadId ? vm.threadId : '';

    const mode = el('select', {
      id: 'mode',
      'aria-label': 'Compaction mode (rawr.mode setting)',
      onchange: (e) => send({ type: 'setMode', mode: e.target.value }),
    });
    for (const [v, label] of [
      ['off', 'off — never'],
      ['tag', 'tag — annotate only'],
      ['suggest', 'suggest — offer a button'],
      ['auto', 'auto — run the golden path'],
    ])
      mode.appendChild(el('option', { value: v }, label));
    mode.value = (vm && vm.mode) || 'auto';
    mode.disabled = !vm || !vm.mode;

    return el(
      'header',
      { class: 'top' },
      el('h1', {}, icon('fold'), ' Rawr — compaction'),
      el(
        'div',
        { class: 'controls' },
        el('label', { for: 'thread' }, 'Thread'),
        pick,
        el('label', { for: 'mode' }, 'Mode'),
        mode,
        button('Settings', 'settings-gear', () => send({ type: 'openSettings' }), { 'aria-label': 'Open rawr settings' }),
        button('Export log', 'export', () => vm && vm.threadId && send({ type: 'exportLog', threadId: vm.threadId }), {
          disabled: !vm || !vm.threadId,
          'aria-label': 'Export the decision log of this thread (JSON Lines)',
        }),
        button('Refresh', 'refresh', () => send({ type: 'refresh' }), { 'aria-label': 'Refresh the panel' }),
      ),
    );
  }

  function gauge() {
    const g = vm.gauge;
    // Everything here speaks in context *remaining*, like the status bar, /status and the tier thresholds:
    // the bar is what is left (it shrinks as the thread grows), and a tier's mark sits at its threshold.
    const remaining = g.percentRemaining;
    const bar = el('div', {
      class: `gauge-bar tier-${g.tier || 'none'}`,
      role: 'meter',
      'aria-label': 'Context remaining',
      'aria-valuemin': '0',
      'aria-valuemax': '100',
      'aria-valuenow': remaining === null ? undefined : remaining.toFixed(1),
      'aria-valuetext': g.percentLabel ? `${g.percentLabel} remaining${g.tier ? `, tier ${g.tier}` : ''}` : 'unknown',
    });
    const fill = el('div', { class: 'gauge-fill' });
    fill.style.width = `${remaining === null ? 0 : Math.max(0, Math.min(100, remaining))}%`;
    bar.appendChild(fill);
    for (const t of g.thresholds) {
      const mark = el(
        'div',
        { class: `gauge-mark mark-${t.tier}${g.tier === t.tier ? ' current' : ''}`, title: `${t.tier}: below ${t.below}% remaining` },
        el('span', { class: 'mark-label' }, TIER_LABEL[t.tier], el('br'), `<${t.below}%`),
      );
      mark.style.left = `${t.below}%`;
      bar.appendChild(mark);
    }
    // The phase forecast: what the next phase will take off the remaining bar (red past the emergency line).
    const f = g.forecast;
    if (f && remaining !== null) {
      const span = el('div', {
        class: `gauge-forecast${f.fits ? '' : ' no-fit'}`,
        'data-testid': 'gauge-forecast',
        title: `Next phase ≈ ${tokens(f.nextPhaseTokens)} tokens (${f.basis === 'thread' ? `largest of the recent ${f.phases} phase(s)` : f.basis === 'workspace' ? 'earlier threads' : 'settings prior'}): ${f.fits ? 'fits before the emergency line' : 'does not fit before the emergency line'}`,
      });
      const end = Math.max(0, Math.min(100, remaining));
      const start = Math.max(0, Math.min(end, 100 - f.endPercentUsed));
      span.style.left = `${start}%`;
      span.style.width = `${end - start}%`;
      bar.appendChild(span);
    }
    const summary = el(
      'p',
      { class: 'gauge-text' },
      el('strong', { id: 'gauge-percent', 'data-testid': 'gauge-percent' }, g.percentLabel ? `${g.percentLabel} remaining` : 'Context remaining not known yet'),
      g.usedTokens !== null && g.window !== null ? ` · ${tokens(Math.max(0, g.window - g.usedTokens))} of ${tokens(g.window)} tokens remaining` : '',
      ' · ',
      el('span', { class: `tier-badge tier-${g.tier || 'none'}` }, g.tier ? `tier ${g.tier}` : 'no tier'),
      vm.turn !== null ? ` · turn ${vm.turn}` : '',
      g.forecast
        ? el(
            'span',
            { class: 'forecast-text', 'data-testid': 'gauge-forecast-text' },
            ` · next phase ≈ ${tokens(g.forecast.nextPhaseTokens)} tokens (${g.forecast.fits ? 'fits' : 'does not fit'} before emergency)`,
          )
        : '',
    );
    return section(
      'gauge',
      'Context',
      'dashboard',
      summary,
      bar,
      el(
        'p',
        { class: 'muted small' },
        `Status bar: ${g.statusText}. A tier starts when the remaining context drops below its threshold; rawr compacts at a tier-appropriate boundary (emergency: at the next safe point).`,
      ),
    );
  }

  const STEP_LABEL = { heads_up: 'Heads-up', packet: 'Packet', compact: 'Compact', handoff: 'Handoff' };
  const STEP_ICON = { done: 'pass', active: 'loading', pending: 'circle-outline', skipped: 'circle-slash' };
  function sequence() {
    const s = vm.sequence;
    if (!s)
      return section('sequence', 'Sequence', 'milestone', el('p', { class: 'muted' }, 'No compaction sequence has run in this thread yet.'), compactNowRow());
    const steps = el('ol', { class: 'steps', 'aria-label': 'Golden path steps' });
    for (const st of s.steps) {
      steps.appendChild(
        el(
          'li',
          { class: `step ${st.state}`, 'aria-label': `${STEP_LABEL[st.step]}: ${st.state}` },
          icon(STEP_ICON[st.state] || 'circle-outline', st.state === 'active' ? 'codicon-modifier-spin' : ''),
          ' ',
          STEP_LABEL[st.step],
        ),
      );
    }
    const head = el(
      'p',
      {},
      el('strong', {}, s.running ? `Running ${s.seqId}` : `Last sequence ${s.seqId}`),
      s.outcome ? ` — ${s.outcome}` : '',
      s.startedAt ? ` · started ${clock(s.startedAt)}` : '',
      ` · ${s.detail}`,
    );
    const cancel = s.running
      ? button('Cancel sequence', 'stop-circle', () => send({ type: 'cancelSequence', threadId: vm.threadId }), {
          class: 'btn danger',
          disabled: !s.canCancel,
          'aria-label': 'Cancel the running compaction sequence',
        })
      : null;
    return section(
      'sequence',
      s.running ? 'Sequence in progress' : 'Sequence',
      'milestone',
      head,
      steps,
      s.reason ? el('p', { class: 'reason' }, s.reason) : null,
      cancel,
      compactNowRow(),
    );
  }

  /** Compact now, with optional instructions (runs `@rawr /compact …` in the Chat view via rawr.compactNow). */
  function compactNowRow() {
    const input = el('input', {
      id: 'instructions',
      type: 'text',
      placeholder: 'Optional instructions for the summary',
      'aria-label': 'Optional instructions for the summary',
      maxlength: '4000',
      oninput: (e) => {
        ui.instructions = e.target.value;
        save();
      },
      onkeydown: (e) => {
        if (e.key === 'Enter') compactNow();
      },
    });
    input.value = ui.instructions;
    const running = vm && vm.sequence && vm.sequence.running;
    function compactNow() {
      send({ type: 'compactNow', instructions: ui.instructions });
      ui.instructions = '';
      save();
    }
    return el(
      'div',
      { class: 'row compact-now' },
      input,
      button('Compact now', 'fold', compactNow, {
        class: 'btn primary',
        disabled: !!running,
        'aria-label': 'Compact now (runs @rawr /compact in the Chat view)',
      }),
    );
  }

  const KIND_ICON = {
    commit: 'git-commit',
    pr_checkpoint: 'git-pull-request',
    plan_checkpoint: 'checklist',
    plan_update: 'list-unordered',
    agent_done: 'pass',
    concluding: 'comment',
    topic_shift: 'arrow-swap',
    turn_complete: 'debug-step-over',
  };
  const STATUS_ICON = { pending: 'clock', consumed: 'check', ignored: 'circle-slash', seen: 'eye' };
  function boundaries() {
    const list = vm.boundaries.slice().reverse();
    if (!list.length)
      return section(
        'boundaries',
        'Boundaries',
        'git-commit',
        el('p', { class: 'muted' }, 'No boundary signal yet (commits, plan steps, pushes, done/concluding markers, turn ends).'),
      );
    const table = el('table', { class: 'grid', 'aria-label': 'Boundary signals, newest first' });
    table.appendChild(
      el(
        'thead',
        {},
        el(
          'tr',
          {},
          ['Time', 'Kind', 'Source', 'Commit / step', 'Turn', 'Status'].map((h) => el('th', { scope: 'col' }, h)),
        ),
      ),
    );
    const body = el('tbody');
    for (const b of list) {
      body.appendChild(
        el(
          'tr',
          { class: `boundary status-${b.status}`, title: b.detail },
          el('td', {}, clock(b.at)),
          el(
            'td',
            { class: 'kind' },
            icon(KIND_ICON[b.kind] || 'circle-filled'),
            ' ',
            b.kind,
            ' ',
            el('span', { class: `strength ${b.strength}` }, b.strength),
          ),
          el('td', {}, b.sources.join(', ')),
          el('td', { class: 'ref' }, b.ref || b.detail),
          el('td', {}, b.turn === null ? '—' : String(b.turn)),
          el(
            'td',
            {},
            icon(STATUS_ICON[b.status] || 'circle-outline'),
            ' ',
            b.status,
            b.consumedBy ? ` by ${b.consumedBy}` : '',
            b.note ? el('div', { class: 'muted small' }, b.note) : null,
          ),
        ),
      );
    }
    table.appendChild(body);
    // tabindex: a scrollable region must be reachable from the keyboard to be scrolled with it.
    return section(
      'boundaries',
      'Boundaries',
      'git-commit',
      el('div', { class: 'scroll', tabindex: '0', role: 'region', 'aria-label': 'Boundary signals (scrollable)' }, table),
    );
  }

  const ACTION_ICON = { compact: 'fold', judge: 'law', preflight: 'arrow-right', suggest: 'lightbulb', tag: 'tag', none: 'dash' };
  const VERDICT_LABEL = {
    pending: 'pending',
    approved: 'approved',
    vetoed: 'vetoed',
    fallback_approved: 'fallback: approved',
    fallback_vetoed: 'fallback: vetoed',
    cancelled: 'cancelled',
  };
  function timeline() {
    const toggle = el(
      'label',
      { class: 'toggle' },
      el('input', {
        type: 'checkbox',
        id: 'show-noise',
        checked: ui.showNoise,
        onchange: (e) => {
          ui.showNoise = e.target.checked;
          save();
          render();
        },
      }),
      ' Show plain "above threshold" evaluations',
    );
    const items = vm.timeline
      .filter((x) => ui.showNoise || !(x.kind === 'decision' && x.noise))
      .slice()
      .reverse();
    const hidden = vm.timeline.length - vm.timeline.filter((x) => !(x.kind === 'decision' && x.noise)).length;
    const list = el('ol', { class: 'timeline', tabindex: '0', 'aria-label': 'Decision timeline, newest first' });
    for (const it of items.slice(0, 400)) {
      if (it.kind === 'compaction') {
        list.appendChild(
          el(
            'li',
            { class: 'tl compaction' },
            el('div', { class: 'tl-head' }, icon('fold'), ' ', el('span', { class: 'time' }, clock(it.at)), ' ', el('strong', {}, it.text)),
            it.reason ? el('div', { class: 'reason' }, 'Why: ', it.reason) : null,
            receiptLine(it.receipt, "the agent's packet"),
          ),
        );
      } else if (it.kind === 'sequence_end') {
        list.appendChild(
          el(
            'li',
            { class: 'tl ended' },
            el(
              'div',
              { class: 'tl-head' },
              icon(it.outcome === 'cancelled' ? 'stop-circle' : 'error'),
              ' ',
              el('span', { class: 'time' }, clock(it.at)),
              ' ',
              el('strong', {}, `Sequence ${it.seqId} ${it.outcome}`),
            ),
            it.reason ? el('div', { class: 'reason' }, it.reason) : null,
          ),
        );
      } else {
        const j = it.judgment;
        list.appendChild(
          el(
            'li',
            { class: `tl decision action-${it.action}${it.noise ? ' noise' : ''}` },
            el(
              'div',
              { class: 'tl-head' },
              icon(ACTION_ICON[it.action] || 'dash'),
              ' ',
              el('span', { class: 'time' }, clock(it.at)),
              ' ',
              el('span', { class: 'badge' }, `${it.action} · ${it.code}`),
              ' ',
              it.forecast && it.forecast.drove
                ? el(
                    'span',
                    {
                      class: 'badge forecast',
                      'data-testid': 'forecast-badge',
                      title: `next phase ≈ ${tokens(it.forecast.nextPhaseTokens)} tokens, ${tokens(it.forecast.roomTokens)} left before emergency`,
                    },
                    'forecast',
                  )
                : null,
              it.forecast && it.forecast.drove ? ' ' : null,
              el(
                'span',
                { class: 'muted' },
                `${it.id} at ${it.point}${it.tier ? ` · tier ${it.tier}` : ''}${it.percentRemaining !== null ? ` · ${it.percentRemaining}% remaining` : ''}`,
              ),
            ),
            el('div', { class: 'reason' }, it.reason),
            j
              ? el(
                  'div',
                  { class: `judgment verdict-${j.verdict}` },
                  icon('law'),
                  ' Judgment ',
                  el('code', {}, j.corrId),
                  `: ${VERDICT_LABEL[j.verdict] || j.verdict}`,
                  j.latencyMs !== null ? ` in ${j.latencyMs} ms` : '',
                  j.timedOut ? ' (timed out)' : '',
                  j.reason ? ` — ${j.reason}` : '',
                )
              : null,
          ),
        );
      }
    }
    if (!items.length) list.appendChild(el('li', { class: 'muted' }, 'No decision yet.'));
    return section(
      'timeline',
      'Decision timeline',
      'history',
      el('div', { class: 'row' }, toggle, hidden && !ui.showNoise ? el('span', { class: 'muted small' }, ` (${hidden} hidden)`) : null),
      list,
    );
  }

  function compactions() {
    const list = vm.compactions.slice().reverse();
    if (!list.length) return section('compactions', 'Compactions', 'fold', el('p', { class: 'muted' }, 'This thread has not been compacted.'));
    const wrap = el('div', {});
    for (const c of list) {
      const key = `${vm.threadId}/${c.seqId}`;
      const choice = ui.packetChoices.find((x) => x[0] === key);
      const det = el('details', { class: 'packet' });
      det.open = choice ? choice[1] : list[0] === c;
      // Only a person's click (or Enter/Space on the summary, which clicks it) is remembered, not the
      // default opening above; the click runs before the details element toggles, so the new state is !open.
      const summaryClicked = () => {
        ui.packetChoices = ui.packetChoices.filter((x) => x[0] !== key).concat([[key, !det.open]]);
        save();
      };
      det.appendChild(el('summary', { onclick: summaryClicked }, `Continuation packet${c.packetAuthor ? ` (by the ${c.packetAuthor})` : ''}`));
      det.appendChild(c.packet ? markdown(c.packet) : el('p', { class: 'muted' }, 'Packet not recorded.'));
      wrap.appendChild(
        el(
          'article',
          { class: `compaction-card${c.undone ? ' undone' : ''}`, 'aria-label': `Compaction ${c.seqId}` },
          el('h3', {}, icon('fold'), ` ${c.seqId} · ${tokens(c.tokensBefore)} → ${tokens(c.tokensAfter)} tokens · ${clock(c.at)}`, c.undone ? ' · undone' : ''),
          c.text ? el('p', {}, c.text) : null,
          c.reason ? el('p', { class: 'reason' }, 'Why: ', c.reason) : null,
          el(
            'div',
            { class: 'row' },
            c.scratchPath
              ? button(`Open ${c.scratchPath}`, 'go-to-file', () => send({ type: 'openScratch', path: c.scratchPath }), {
                  class: 'btn link',
                  'aria-label': `Open the scratch file ${c.scratchPath}`,
                })
              : null,
            c.canUndo
              ? button('Undo this compaction', 'discard', () => send({ type: 'undo', threadId: vm.threadId, seqId: c.seqId }), {
                  class: 'btn',
                  'aria-label': `Undo compaction ${c.seqId}`,
                })
              : null,
          ),
          det,
        ),
      );
    }
    return section('compactions', 'Compactions', 'fold', wrap);
  }

  function render() {
    // Keep keyboard focus across redraws: remember the focused control by id/aria-label.
    const f = /** @type {HTMLElement | null} */ (document.activeElement);
    const key = f && f !== document.body ? f.id || f.getAttribute('aria-label') : null;
    const input = f instanceof HTMLInputElement && f.type === 'text' ? f : null;
    const caret = input ? [input.selectionStart, input.selectionEnd] : null;
    const children = [header()];
    if (notice) children.push(el('div', { class: `notice ${notice.level}`, role: notice.level === 'error' ? 'alert' : 'status' }, notice.text));
    if (!vm) children.push(el('p', { class: 'muted' }, 'Loading…'));
    else if (!vm.threadId) children.push(el('p', { class: 'muted' }, 'No @rawr thread yet: start one in the Chat view with @rawr.'));
    else {
      children.push(
        el(
          'p',
          { class: 'muted small', id: 'thread-line' },
          `Thread ${vm.threadId}${vm.followActive ? ' (following the active @rawr thread)' : ''} · updated ${clock(vm.updatedAt)}`,
        ),
      );
      children.push(
        el('div', { class: 'cols' }, el('div', { class: 'col' }, gauge(), sequence(), compactions()), el('div', { class: 'col' }, boundaries(), timeline())),
      );
      for (const p of vm.problems) children.push(el('p', { class: 'notice info' }, p));
    }
    app.replaceChildren(...children);
    if (key) {
      const again = document.getElementById(key) || Array.from(document.querySelectorAll('[aria-label]')).find((n) => n.getAttribute('aria-label') === key);
      if (again instanceof HTMLElement) {
        again.focus();
        if (caret && again instanceof HTMLInputElement) again.setSelectionRange(caret[0], caret[1]);
      }
    }
  }

  window.addEventListener('message', (e) => {
    const msg = e.data;
    if (!msg || typeof msg !== 'object') return;
    if (msg.type === 'state' && msg.vm && typeof msg.vm === 'object' && Array.isArray(msg.vm.timeline) && msg.vm.gauge) {
      vm = msg.vm;
      // The host's pick wins (it may have been restored by the serializer).
      ui.threadId = vm.followActive ? null : vm.threadId;
      save();
      render();
    } else if (msg.type === 'notice' && typeof msg.text === 'string') {
      notice = { level: msg.level === 'error' ? 'error' : 'info', text: msg.text };
      render();
      setTimeout(() => {
        notice = null;
        render();
      }, 8000);
    }
  });

  // ---- live follow of an external agent's session (src/host/panel/follow.ts) -----------------------------
  // Its own element above #app, redrawn only from 'follow' messages: the thread view's render() never
  // touches it. The view is kept with the rest of the state so a hidden-then-shown panel redraws at once.
  const followRoot = el('div', { id: 'follow-root' });
  app.parentNode.insertBefore(followRoot, app);
  let followView = saved.followView && typeof saved.followView === 'object' ? saved.followView : null;
  const AGENT_LABEL = { claude: 'Claude Code', codex: 'Codex' };
  function followGauge(v) {
    const g = v.gauge;
    const used = g.percentRemaining === null ? null : 100 - g.percentRemaining;
    const bar = el('div', {
      class: `gauge-bar tier-${g.tier || 'none'}`,
      role: 'meter',
      'aria-label': 'Followed session: context window used',
      'aria-valuemin': '0',
      'aria-valuemax': '100',
      'aria-valuenow': used === null ? undefined : used.toFixed(1),
    });
    const fill = el('div', { class: 'gauge-fill' });
    fill.style.width = `${used === null ? 0 : Math.max(0, Math.min(100, used))}%`;
    bar.appendChild(fill);
    for (const t of g.thresholds) {
      const mark = el('div', { class: `gauge-mark mark-${t.tier}${g.tier === t.tier ? ' current' : ''}`, title: `${t.tier}: below ${t.below}% remaining` });
      mark.style.left = `${100 - t.below}%`;
      bar.appendChild(mark);
    }
    const pct = g.percentRemaining === null ? 'Context use not known yet' : `${Math.floor(g.percentRemaining)}% left`;
    return [
      el(
        'p',
        { class: 'gauge-text' },
        el('strong', { 'data-testid': 'follow-percent' }, pct),
        ` · ${tokens(g.usedTokens)} / ${tokens(v.window.tokens)} tokens · `,
        el('span', { class: `tier-badge tier-${g.tier || 'none'}` }, g.tier ? `tier ${g.tier}` : 'no tier'),
      ),
      bar,
    ];
  }
  /** "Receipt: the agent's packet kept 6 of rawr's 8 facts; rawr added 2 (commits 1, current ask 1)". */
  function receiptLine(facts, keptBy) {
    if (!Array.isArray(facts) || facts.length === 0) return null;
    const total = (k) => facts.reduce((a, f) => a + f[k], 0);
    const added = facts.filter((f) => f.added > 0).map((f) => `${f.cls.replace(/_/g, ' ')} ${f.added}`);
    return el(
      'div',
      { class: 'reason', 'data-testid': 'receipt' },
      `Receipt: ${keptBy} kept ${total('kept')} of rawr's ${total('facts')} facts; rawr added ${total('added')}${added.length ? ` (${added.join(', ')})` : ''}`,
    );
  }
  function followList(title, items, render) {
    if (!items || items.length === 0) return null;
    return el(
      'div',
      { class: 'follow-part' },
      el('h3', {}, title),
      el(
        'ul',
        { class: 'follow-list' },
        items.map((x) => el('li', {}, render(x))),
      ),
    );
  }
  function renderFollow() {
    followRoot.textContent = '';
    const v = followView;
    if (!v) {
      followRoot.appendChild(
        el(
          'p',
          { class: 'follow-off muted' },
          icon('eye'),
          ' Not following an external agent session. ',
          button('Follow agent session…', 'eye', () => send({ type: 'followPick' }), { class: 'btn link' }),
        ),
      );
      return;
    }
    const name = v.path.split(/[\\/]/).pop();
    const body = [
      el('p', { class: 'muted small' }, `${v.how} · ${v.lines} lines · ${v.path}`),
      ...followGauge(v),
      el('p', { class: 'muted small' }, `Window ${tokens(v.window.tokens)} tokens: ${v.window.why}`),
    ];
    if (v.wouldCompact) {
      body.push(
        el(
          'div',
          { class: 'follow-would', role: 'status' },
          icon('fold'),
          ' ',
          el('strong', { 'data-testid': 'follow-would' }, v.wouldCompact.text),
          ` (line ${v.wouldCompact.line})`,
        ),
      );
      if (v.wouldCompact.command)
        body.push(
          el(
            'div',
            { class: 'follow-command' },
            el('pre', {}, el('code', {}, v.wouldCompact.command)),
            button('Copy', 'copy', () => send({ type: 'followCopy' }), { 'aria-label': 'Copy the /compact command' }),
          ),
        );
      else if (v.mode !== 'suggest')
        body.push(el('p', { class: 'muted small' }, `Mode ${v.mode}: switch rawr to suggest mode to get a ready /compact command here.`));
    }
    // Claude Code shows a refused compaction nowhere: rawr's hook answer is said here (steer-log.jsonl).
    const steering = Array.isArray(v.steering) ? v.steering : [];
    const steer = steering[steering.length - 1];
    if (steer)
      body.push(
        el(
          'div',
          { class: 'follow-would', role: 'status' },
          icon(steer.allow ? 'fold' : 'debug-pause'),
          ' ',
          el('strong', { 'data-testid': 'follow-steer' }, `Claude Code's compaction: ${steer.text}`),
          steer.at ? ` (${clock(Date.parse(steer.at))})` : '',
        ),
      );
    body.push(
      followList('Pending boundaries', v.pending, (b) => b),
      followList('Plan', v.plan, (p) => `[${p.status === 'completed' ? 'x' : p.status === 'in_progress' ? '~' : ' '}] ${p.text}`),
      followList('Decisions (newest first)', v.decisions.slice(-10).reverse(), (d) => [
        el('strong', {}, `line ${d.line} · ${d.point} · ${d.action}`),
        d.percentRemaining === null ? '' : ` · ${d.percentRemaining.toFixed(1)}% left`,
        el('div', { class: 'muted small' }, d.reason),
      ]),
      followList(
        `${AGENT_LABEL[v.agent] || v.agent}'s own compactions`,
        v.nativeCompactions,
        (n) => `line ${n.line} (${n.trigger}${n.preTokens === null ? '' : `, ${tokens(n.preTokens)} tokens`})`,
      ),
      followList(
        "rawr's answers to Claude Code's compaction (newest first)",
        steering.slice(-10).reverse(),
        (e) => `${e.at ? clock(Date.parse(e.at)) : ''} ${e.allow ? 'allowed' : 'refused'}${e.trigger ? ` (${e.trigger})` : ''}: ${e.text}`,
      ),
      followList(`Receipts after ${AGENT_LABEL[v.agent] || v.agent}'s compactions (newest first)`, (v.receipts || []).slice().reverse(), (r) => {
        const total = (k) => r.facts.reduce((a, f) => a + f[k], 0);
        const added = r.facts.filter((f) => f.added > 0).map((f) => `${f.cls.replace(/_/g, ' ')} ${f.added}`);
        return [
          el(
            'strong',
            {},
            `${r.at ? clock(Date.parse(r.at)) : ''} ${r.trigger || ''} compaction: ${r.tokensBefore === null ? '?' : tokens(r.tokensBefore)} → ~${tokens(r.tokensAfter)} tokens`,
          ),
          el(
            'div',
            { class: 'muted small' },
            `the summary kept ${total('kept')} of rawr's ${total('facts')} facts; rawr re-injected ${total('added')}${added.length ? ` (${added.join(', ')}; ~${tokens(r.repairTokens)} tokens)` : ''}`,
          ),
        ];
      }),
      followList('rawr hooks: snapshots and injections', v.hooks, (h) => `${h.kind} ${h.at ? clock(Date.parse(h.at)) : ''} ${h.file}`),
      followList(
        `Problems: ${v.problemCount.toLocaleString('en-US')} line${v.problemCount === 1 ? '' : 's'} skipped${v.problemCount > v.problems.length ? ` (the first ${v.problems.length} listed)` : ''}`,
        v.problems,
        (p) => p,
      ),
    );
    const head = el('h2', { id: 'follow-h' }, icon('eye'), ' ', `Following ${AGENT_LABEL[v.agent] || v.agent}: ${name}`);
    const actions = el(
      'div',
      { class: 'row' },
      button('Follow another…', 'list-selection', () => send({ type: 'followPick' })),
      button('Stop following', 'debug-stop', () => send({ type: 'followStop' })),
    );
    followRoot.appendChild(el('section', { id: 'follow', 'aria-labelledby': 'follow-h' }, head, ...body, actions));
  }
  window.addEventListener('message', (e) => {
    const msg = e.data;
    if (!msg || typeof msg !== 'object' || msg.type !== 'follow') return;
    followView = msg.view && typeof msg.view === 'object' && msg.view.gauge ? msg.view : null;
    vscode.setState(Object.assign({}, vscode.getState() || {}, { followView }));
    renderFollow();
  });
  renderFollow();

  render();
  if (ui.threadId) send({ type: 'selectThread', threadId: ui.threadId });
  send({ type: 'ready' });
})();
