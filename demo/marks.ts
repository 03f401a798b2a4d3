/**
 * What the page remembers about a conversation beyond its messages, in localStorage (so a reload
 * and every tab see it): where runs were stopped, and which tool calls the person was asked about
 * (a gated call that ran without being asked was approved by a remembered rule).
 */
import type { StopMark } from "./chat-view.js";

const MARKS_KEY = "kaboo-demo:stops:";
const ASKED_KEY = "kaboo-demo:asked";
const ASKED_LIMIT = 500;

function read<T>(key: string, fallback: T, valid: (v: unknown) => boolean): T {
  try {
    const v: unknown = JSON.parse(localStorage.getItem(key) ?? "null");
    return valid(v) ? (v as T) : fallback;
  } catch {
    return fallback;
  }
}

const isMarks = (v: unknown) =>
  Array.isArray(v) && v.every((m) => m && typeof m.after === "string" && typeof m.text === "string");

/** The stop marks of a conversation. */
export function stopMarks(threadId: string): StopMark[] {
  return read<StopMark[]>(MARKS_KEY + threadId, [], isMarks);
}

/** Adds a stop mark after a message. */
export function addStopMark(threadId: string, mark: StopMark): StopMark[] {
  const marks = [...stopMarks(threadId).filter((m) => m.after !== mark.after), mark].slice(-50);
  localStorage.setItem(MARKS_KEY + threadId, JSON.stringify(marks));
  return marks;
}

/** Drops the error mark after a message (its answer is being tried again). */
export function dropErrorMark(threadId: string, after: string): StopMark[] {
  const marks = stopMarks(threadId).filter((m) => !(m.kind === "error" && m.after === after));
  localStorage.setItem(MARKS_KEY + threadId, JSON.stringify(marks));
  return marks;
}

/** Keeps only the marks after messages that are still there (after a regenerate). */
export function keepStopMarks(threadId: string, messageIds: ReadonlySet<string>): StopMark[] {
  const marks = stopMarks(threadId).filter((m) => messageIds.has(m.after));
  localStorage.setItem(MARKS_KEY + threadId, JSON.stringify(marks));
  return marks;
}

/** Forgets a deleted conversation's marks. */
export function forgetMarks(threadId: string): void {
  localStorage.removeItem(MARKS_KEY + threadId);
}

const isIds = (v: unknown) => Array.isArray(v) && v.every((x) => typeof x === "string");

/** Notes that the person was asked about these tool calls. */
export function markAsked(callIds: readonly string[]): void {
  const asked = read<string[]>(ASKED_KEY, [], isIds);
  const fresh = callIds.filter((id) => !asked.includes(id));
  if (fresh.length) localStorage.setItem(ASKED_KEY, JSON.stringify([...asked, ...fresh].slice(-ASKED_LIMIT)));
}

/** Whether the person was asked about a tool call. */
export function wasAsked(callId: string): boolean {
  return read<string[]>(ASKED_KEY, [], isIds).includes(callId);
}

const INFLIGHT_KEY = "kaboo-demo:answering:";

/** An answer the page sent to resume a run, kept until that run ends. */
export interface SentAnswer {
  interruptId: string;
  status: "resolved" | "cancelled";
  payload?: unknown;
}

const isAnswers = (v: unknown) =>
  Array.isArray(v) && v.every((a) => a && typeof a.interruptId === "string" && typeof a.status === "string");

/**
 * Notes the answers a resume carries while its run goes on. A page closed mid-run finds them on its
 * next load and sends them again instead of asking the person a question they already answered (the
 * execution ledger keeps that from running anything twice: a call already claimed comes back as one
 * "did this go through?" question).
 */
export function noteAnswering(threadId: string, answers: readonly SentAnswer[]): void {
  // This tab's own (sessionStorage survives its reload, and no other tab sends them again).
  sessionStorage.setItem(INFLIGHT_KEY + threadId, JSON.stringify(answers));
}

/** The run that carried them ended (in any way): forget them. */
export function doneAnswering(threadId: string): void {
  sessionStorage.removeItem(INFLIGHT_KEY + threadId);
}

/** The answers a run of this conversation was carrying when the page stopped, if any. */
export function answering(threadId: string): SentAnswer[] {
  try {
    const v: unknown = JSON.parse(sessionStorage.getItem(INFLIGHT_KEY + threadId) ?? "null");
    return isAnswers(v) ? (v as SentAnswer[]) : [];
  } catch {
    return [];
  }
}
