/**
 * One turn in the transcript: the question, then each round as it happens (reasoning, text, tool
 * calls with their arguments and results, plan tasks), the calls waiting for approval and the
 * servers' questions waiting for an answer (questions.js), and a footer with how the turn ended
 * and its Inspect control. Fed by the turn's events while it runs,
 * or built from a stored turn (GET /conversations/{id}).
 */
import { append, formatMs, h, pretty } from './dom.js';
import { questionRow } from './questions.js';

export class TurnView {
  /**
   * handlers: {onDecide(view, decisions, answered), onInspect(turn), watchConnection(server, connected)}:
   * the last, once the page of a URL-mode question was opened, watches for the user's connection
   * to that server and returns how to stop watching.
   */
  constructor(question, handlers) {
    this.handlers = handlers;
    this.turn = undefined;
    this.blocks = h('div', { class: 'blocks' });
    this.calls = new Map();
    this.texts = new Map();
    this.approvals = h('section', { class: 'approvals', hidden: true });
    /** Connections watched for URL-mode questions whose page was opened: toolCallId → stop(). */
    this.watchers = new Map();
    this.footer = h('footer', { class: 'turn-footer', hidden: true });
    this.element = h('article', { class: 'turn' }, h('div', { class: 'message user' }, question), this.blocks, this.approvals, this.footer);
  }

  /** The live turn: each event of its stream. */
  handle({ event, data }) {
    switch (event) {
      case 'round-start':
        this.element.classList.add('running');
        this.current = undefined;
        return;
      case 'reasoning-delta':
        return this.reasoningOf(data.round).append(data.text);
      case 'text-delta':
        return this.textOf(data.round).append(data.text);
      case 'tool-call':
        return this.toolCall(data);
      case 'tool-result':
        return this.toolResult(data);
      case 'approval-required':
        return this.waitFor(data.pendingApprovals, this.waiting?.elicitations);
      case 'elicitation-required':
        return this.waitFor(this.waiting?.approvals, data.pendingElicitations);
      case 'task-start':
        return append(this.blocks, h('div', { class: 'task-marker' }, `Task ${data.taskId} started: ${data.title}`));
      case 'task-end':
        return append(this.blocks, h('div', { class: `task-marker ${data.status}` }, `Task ${data.taskId} ${data.status}`));
      case 'reflection':
        return this.reflection(data);
      case 'turn-end':
        return this.ended(data);
      case 'error':
        return this.failed(data.error?.code ?? 'error', data.error?.message ?? 'The turn failed.', data.turn);
    }
  }

  /** A step of a reflection strategy (docs/reflection.md): a marker, its text folded away. */
  reflection(step) {
    const titles = {
      trial: () => `Trial ${step.trial}`,
      critique: () => `Critique: ${step.verdict}`,
      revision: () => `Revision ${step.revision}`,
      reflection: () => `Reflection on trial ${step.trial} (${String(step.reason).replace('_', ' ')})`,
      samples: () => `${step.answers.length} answers sampled; kept answer ${step.chosen + 1} (by ${step.by})`,
    };
    const title = titles[step.kind];
    if (!title) return;
    const text = step.kind === 'samples' ? step.answers.map((answer, index) => `[${index + 1}] ${answer}`).join('\n\n') : step.text;
    if (text === undefined) return append(this.blocks, h('div', { class: 'task-marker' }, title()));
    append(this.blocks, h('details', { class: 'reasoning reflection' }, h('summary', {}, title()), h('pre', { class: 'reasoning-text' }, text)));
  }

  reasoningOf(round) {
    const key = `reasoning:${round}`;
    if (!this.texts.has(key)) {
      const body = h('pre', { class: 'reasoning-text' });
      append(this.blocks, h('details', { class: 'reasoning' }, h('summary', {}, 'Reasoning'), body));
      this.texts.set(key, body);
    }
    return this.texts.get(key);
  }

  textOf(round) {
    const key = `text:${round}`;
    if (!this.texts.has(key)) {
      const block = h('div', { class: 'message assistant' });
      append(this.blocks, block);
      this.texts.set(key, block);
    }
    return this.texts.get(key);
  }

  toolCall({ id, name, arguments: args }) {
    const status = h('span', { class: 'status' }, 'running…');
    const result = h('pre', { class: 'result-text' });
    const card = h('div', { class: 'tool-call running', 'data-call-id': id },
      h('div', { class: 'tool-head' }, h('span', { class: 'tool-name' }, name), status),
      h('pre', { class: 'arguments' }, pretty(args ?? {})),
      h('details', { class: 'result', hidden: true }, h('summary', {}, 'Result'), result));
    this.calls.set(id, { card, status, result });
    append(this.blocks, card);
  }

  toolResult({ id, name, ok, durationMs, content }) {
    if (!this.calls.has(id)) this.toolCall({ id, name, arguments: undefined });
    const { card, status, result } = this.calls.get(id);
    card.classList.remove('running');
    card.classList.add(ok === false ? 'failed' : 'ok');
    status.textContent = ok === undefined ? 'answered' : `${ok ? 'ok' : 'failed'}${durationMs === undefined ? '' : ` · ${formatMs(durationMs)}`}`;
    if (content !== undefined) {
      result.textContent = pretty(content);
      result.parentElement.hidden = false;
      // A short result is read at a glance; a long one waits for a click.
      result.parentElement.open = content.length <= 400;
    }
  }

  /**
   * Calls waiting for a person: one Approve and one Decline for each call waiting for approval, an
   * answer for each server's question; the last decision sends them all (a paused turn is decided
   * whole).
   */
  waitFor(approvals = [], elicitations = []) {
    this.stopWatching();
    this.waiting = { approvals, elicitations };
    const count = approvals.length + elicitations.length;
    const title = elicitations.length === 0
      ? (count === 1 ? 'This call waits for your approval' : `These ${count} calls wait for your approval`)
      : (count === 1 ? 'A tool asks you' : `These ${count} calls wait for you`);
    this.approvals.replaceChildren(h('h3', {}, title));
    const decisions = new Map();
    const decide = (decision) => {
      decisions.set(decision.toolCallId, decision);
      if (decisions.size === count) {
        this.stopWatching();
        // What is asked next (the resumed turn may pause again) starts afresh.
        const answered = this.waiting;
        this.waiting = undefined;
        this.handlers.onDecide(this, [...decisions.values()], answered);
      }
    };
    for (const call of approvals) {
      this.calls.get(call.toolCallId)?.status.replaceChildren('waiting for approval');
      const choose = (approved) => () => {
        row.classList.add(approved ? 'approved' : 'declined');
        for (const button of row.querySelectorAll('button')) button.disabled = true;
        decide({ toolCallId: call.toolCallId, approved, ...(approved ? {} : { reason: 'declined in the chat page' }) });
      };
      const row = h('div', { class: 'pending-call' },
        h('div', { class: 'tool-head' }, h('span', { class: 'tool-name' }, call.name), h('span', { class: 'status' }, call.server ? `on ${call.server}` : '')),
        h('pre', { class: 'arguments' }, pretty(call.arguments)),
        h('div', { class: 'actions' }, h('button', { class: 'approve', onclick: choose(true) }, 'Approve'), h('button', { class: 'decline', onclick: choose(false) }, 'Decline')));
      append(this.approvals, row);
    }
    for (const question of elicitations) {
      this.calls.get(question.toolCallId)?.status.replaceChildren('waiting for your answer');
      const answer = (given) => decide({ toolCallId: question.toolCallId, answer: given });
      const row = questionRow(question, { answer, linkOpened: () => this.watchFor(question, row) });
      append(this.approvals, row.element);
    }
    this.approvals.hidden = false;
  }

  /**
   * The page of a URL-mode question was opened (a per-user server's connect link, say): once the
   * user's connection to its server shows up, the page answers accept itself, and says so.
   */
  watchFor(question, row) {
    if (!this.handlers.watchConnection || !question.server || this.watchers.has(question.toolCallId)) return;
    const stop = this.handlers.watchConnection(question.server, () => {
      this.watchers.delete(question.toolCallId);
      // Said before the answer goes: a last answer sends the decisions, and the turn streams on below.
      append(this.blocks, h('div', { class: 'message assistant note resumed' }, `Connected to ${question.server}: the page answered for you, and the turn goes on.`));
      if (!row.give({ action: 'accept' })) this.blocks.lastChild.remove();
    });
    this.watchers.set(question.toolCallId, stop);
  }

  stopWatching() {
    for (const stop of this.watchers.values()) stop();
    this.watchers.clear();
  }

  /** A new question was sent instead of deciding: the service declines the waiting calls. */
  superseded() {
    this.stopWatching();
    if (this.approvals.hidden || this.element.classList.contains('running')) return;
    this.approvals.hidden = true;
    const what = this.waiting?.elicitations?.length ? 'The calls that waited for you were declined' : 'The calls that waited for approval were declined';
    append(this.blocks, h('div', { class: 'message assistant note' }, `${what}: a new message was sent instead.`));
  }

  ended(result) {
    this.element.classList.remove('running');
    this.turn = result.turn;
    this.element.dataset.turn = String(result.turn);
    // A reply no delta carried (a stop without an answer, a replayed turn) is shown as it is.
    const shown = [...this.texts.entries()].filter(([key]) => key.startsWith('text:')).map(([, block]) => block.textContent).at(-1);
    if (result.reply && shown !== result.reply) append(this.blocks, h('div', { class: `message assistant${result.stopReason === 'completed' ? '' : ' note'}` }, result.reply));
    if ((result.pendingApprovals?.length || result.pendingElicitations?.length) && this.approvals.hidden) this.waitFor(result.pendingApprovals, result.pendingElicitations);
    if (result.stopReason !== 'approval_required' && result.stopReason !== 'input_required') {
      this.stopWatching();
      this.approvals.hidden = true;
    }
    const usage = result.usage ? `${result.usage.promptTokens} + ${result.usage.completionTokens} tokens` : undefined;
    this.showFooter([`Turn ${result.turn}`, result.stopReason, result.rounds === undefined ? undefined : `${result.rounds} round${result.rounds === 1 ? '' : 's'}`, usage]);
  }

  failed(code, message, turn) {
    this.element.classList.remove('running');
    append(this.blocks, h('div', { class: 'error' }, h('strong', {}, code), ` ${message}`));
    if (turn !== undefined) {
      this.turn = turn.turn ?? turn;
      this.showFooter([`Turn ${this.turn}`, 'error']);
    }
  }

  showFooter(parts) {
    const inspect = this.turn === undefined ? undefined : h('button', { class: 'inspect', onclick: () => this.handlers.onInspect(this.turn) }, 'Inspect');
    this.footer.replaceChildren(h('span', { class: 'summary' }, parts.filter(Boolean).join(' · ')), inspect);
    this.footer.hidden = false;
  }

  /** A stored turn: its messages as the conversation keeps them. */
  static stored(turn, handlers) {
    const messages = turn.messages ?? [];
    const questions = messages.filter((message) => message.role === 'user');
    const view = new TurnView(questions.at(-1)?.content ?? '', handlers);
    view.turn = turn.turn;
    view.element.dataset.turn = String(turn.turn);
    let round = 0;
    for (const message of messages) {
      if (message.role === 'assistant') {
        round += 1;
        if (message.reasoning?.text) view.reasoningOf(round).append(message.reasoning.text);
        if (message.content) view.textOf(round).append(message.content);
        for (const call of message.toolCalls ?? []) view.toolCall({ id: call.id, name: call.name, arguments: call.arguments });
      } else if (message.role === 'tool') {
        view.toolResult({ id: message.toolCallId, name: message.name, content: message.content });
      }
    }
    if (turn.pendingApprovals?.length || turn.pendingElicitations?.length) view.waitFor(turn.pendingApprovals, turn.pendingElicitations);
    const when = turn.completedAt ? new Date(turn.completedAt).toLocaleString() : undefined;
    view.showFooter([`Turn ${turn.turn}`, turn.stopReason, when]);
    return view;
  }
}
