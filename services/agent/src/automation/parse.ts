import * as chrono from 'chrono-node';
import { DomainError } from '@gateway/lib/errors';
import type { WorkflowCommand } from '../db/tables/workflows';
import { isValidCron, nextCronRun } from './schedule';

/**
 * Natural language to a workflow (chat-automate). Times of day and one-off
 * moments are read by chrono-node ("in 2 hours", "tomorrow at 17:30", "at
 * 9am"); repetition ("every weekday", "every monday and thursday", "every 15
 * minutes", "monthly on the 1st") becomes a five-field cron expression,
 * checked and stepped by cron-parser. Every time is UTC. What cannot be
 * understood is a 400 that says what was understood and what is missing.
 */
export type ParsedAutomation =
  | { kind: 'once'; task: string; runAt: Date; schedule: string }
  | { kind: 'recurring'; task: string; cron: string; nextRunAt: Date; schedule: string };

export const AUTOMATION_TEXT_MAX = 500;

const EXAMPLES = '"in 2 hours", "tomorrow at 9am", or a repetition such as "every weekday at 9am" (times are UTC)';

function notUnderstood(message: string): DomainError {
  return new DomainError('validation', `text: ${message}`, { field: 'text' });
}

interface TimeOfDay {
  hour: number;
  minute: number;
}

interface Repetition {
  /** The words that said it, removed from the task. */
  phrase: string;
  describe: (time: TimeOfDay | undefined) => string;
  /** The cron expression, or what is still needed. */
  cron: (time: TimeOfDay | undefined) => string | { needs: string };
}

const DAY_NAMES = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'] as const;
const DAY = '(?:mon|tues|wednes|thurs|fri|satur|sun)days?';
const DAY_LIST = `${DAY}(?:\\s*(?:,|and|&)\\s*${DAY})*`;

const clock = ({ hour, minute }: TimeOfDay) => `${String(hour).padStart(2, '0')}:${String(minute).padStart(2, '0')} UTC`;
const needsTime = (what: string) => ({ needs: `a time of day for "${what}", e.g. "${what} at 9am"` });

/** A repetition at a time of day on some days of the week (cron day-of-week field). */
function daily(phrase: string, days: string, said: string, defaultTime?: TimeOfDay): Repetition {
  return {
    phrase,
    describe: (time) => `${said} at ${clock((time ?? defaultTime) as TimeOfDay)}`,
    cron: (time) => {
      const at = time ?? defaultTime;
      return at ? `${at.minute} ${at.hour} * * ${days}` : needsTime(said);
    },
  };
}

/** Finds the repetition the text asks for; undefined when it asks for none. */
function findRepetition(text: string): Repetition | { understood: string; needs: string } | undefined {
  const match = (pattern: RegExp) => pattern.exec(text);
  let found: RegExpExecArray | null;

  if ((found = match(/\bevery\s+(\d{1,3})\s+min(?:ute)?s?\b/i))) {
    const every = Number(found[1]);
    if (every < 1 || every > 59) return { understood: `every ${every} minutes`, needs: 'a number of minutes from 1 to 59' };
    return { phrase: found[0], describe: () => `every ${every} minutes`, cron: () => `*/${every} * * * *` };
  }
  if ((found = match(/\bevery\s+(\d{1,3})\s+hours?\b/i))) {
    const every = Number(found[1]);
    if (every < 1 || every > 23) return { understood: `every ${every} hours`, needs: 'a number of hours from 1 to 23' };
    return { phrase: found[0], describe: () => `every ${every} hours, on the hour`, cron: () => `0 */${every} * * *` };
  }
  if ((found = match(/\b(?:every\s+hour|hourly)\b/i))) {
    return { phrase: found[0], describe: () => 'every hour, on the hour', cron: () => '0 * * * *' };
  }
  if ((found = match(/\b(?:(?:every|on|each)\s+)?(?:week\s?days|business\s+days|working\s+days)\b|\bevery\s+(?:week\s?day|business\s+day|working\s+day)\b/i))) {
    return daily(found[0], '1-5', 'every weekday');
  }
  if ((found = match(/\b(?:every|on)\s+weekends?\b/i))) return daily(found[0], '0,6', 'every weekend day');
  if ((found = match(new RegExp(`\\b(?:every|each|on|weekly\\s+on)\\s+(${DAY_LIST})\\b`, 'i')))) {
    const listed = (found[1] ?? '').toLowerCase().match(new RegExp(DAY, 'g')) ?? [];
    const days = [...new Set(listed.map((day) => DAY_NAMES.findIndex((name) => day.startsWith(name.slice(0, 3)))))].sort();
    const names = days.map((day) => `${DAY_NAMES[day]?.[0]?.toUpperCase()}${DAY_NAMES[day]?.slice(1)}`);
    return daily(found[0], days.join(','), `every ${names.join(' and ')}`);
  }
  if ((found = match(/\bevery\s+(morning|evening|night)\b/i))) {
    const part = (found[1] ?? '').toLowerCase();
    const hour = { morning: 9, evening: 18, night: 21 }[part] ?? 9;
    return daily(found[0], '*', `every ${part}`, { hour, minute: 0 });
  }
  if ((found = match(/\b(?:every\s+day|each\s+day|daily)\b/i))) return daily(found[0], '*', 'every day');
  if ((found = match(/\b(?:every\s+month|monthly)\s+on\s+the\s+(\d{1,2})(?:st|nd|rd|th)?\b/i))) {
    const day = Number(found[1]);
    if (day < 1 || day > 28) return { understood: 'every month', needs: 'a day of the month from 1 to 28 (every month has it)' };
    const said = `on day ${day} of every month`;
    return {
      phrase: found[0],
      describe: (time) => `${said} at ${clock(time as TimeOfDay)}`,
      cron: (time) => (time ? `${time.minute} ${time.hour} ${day} * *` : needsTime(`monthly on the ${day}`)),
    };
  }
  if ((found = match(/\b(?:every\s+month|monthly)\b/i))) {
    return { understood: 'every month', needs: 'the day of the month, e.g. "monthly on the 1st at 9am"' };
  }
  if ((found = match(/\b(?:every\s+week|weekly)\b/i))) {
    return { understood: 'every week', needs: 'the day of the week, e.g. "every friday at 5pm"' };
  }
  if ((found = match(/\bevery\b[^,.;]*/i))) {
    return { understood: `a repetition ("${found[0].trim()}")`, needs: `how often, e.g. ${EXAMPLES}` };
  }
  return undefined;
}

/** Words that joined the time to the task, left over once the time is taken out. */
const LEADING_FILLER = /^(?:remind\s+me|remind|please|to|that|about|and|then|at|on|in|[,:;-])\s*/i;
const TRAILING_FILLER = /\s*(?:at|on|in|and|[,:;-])$/i;

function taskOf(text: string, ...phrases: string[]): string {
  let task = phrases.reduce((rest, phrase) => rest.replace(phrase, ' '), text).replace(/\s+/g, ' ').trim();
  for (let previous = ''; previous !== task; ) {
    previous = task;
    task = task.replace(LEADING_FILLER, '').replace(TRAILING_FILLER, '').trim();
  }
  return task.replace(/[.!]+$/, '').trim();
}

function requireTask(task: string, understoodWhen: string): string {
  if (task === '') throw notUnderstood(`understood when (${understoodWhen}) but not what to do; say it, e.g. "${understoodWhen}: summarise my open sessions"`);
  return task;
}

/** The first time of day the text states, read by chrono-node. */
function timeOfDay(text: string, now: Date): { time: TimeOfDay; phrase: string } | undefined {
  for (const result of chrono.parse(text, { instant: now, timezone: 'UTC' }, { forwardDate: true })) {
    const hour = result.start.get('hour');
    if (result.start.isCertain('hour') && hour !== null) return { time: { hour, minute: result.start.get('minute') ?? 0 }, phrase: result.text };
  }
  return undefined;
}

function recurring(text: string, repetition: Repetition, now: Date): ParsedAutomation {
  const rest = text.replace(repetition.phrase, ' ');
  const at = timeOfDay(rest, now);
  const cron = repetition.cron(at?.time);
  if (typeof cron !== 'string') throw notUnderstood(`understood a repetition ("${repetition.phrase.trim()}") but it needs ${cron.needs}`);
  if (!isValidCron(cron)) throw new Error(`built an invalid cron expression ${cron}`);
  const schedule = repetition.describe(at?.time);
  const task = requireTask(taskOf(text, repetition.phrase, ...(at ? [at.phrase] : [])), schedule);
  return { kind: 'recurring', task, cron, nextRunAt: nextCronRun(cron, now), schedule };
}

function oneOff(text: string, now: Date): ParsedAutomation {
  const [moment] = chrono.parse(text, { instant: now, timezone: 'UTC' }, { forwardDate: true });
  if (!moment) {
    const task = taskOf(text);
    throw notUnderstood(`understood the task "${task || text}" but not when it should run; add when, e.g. ${EXAMPLES}`);
  }
  const runAt = moment.start.date();
  if (runAt.getTime() <= now.getTime()) {
    throw notUnderstood(`understood "${moment.text}" as ${runAt.toISOString()}, which is not in the future; give a later time`);
  }
  const schedule = `once, at ${runAt.toISOString()}`;
  return { kind: 'once', task: requireTask(taskOf(text, moment.text), `"${moment.text}"`), runAt, schedule };
}

/**
 * `trigger` runs its task once, now (the scheduler picks it up at once);
 * the other commands need a when: a repetition or a moment in the future.
 */
export function parseAutomation(command: WorkflowCommand, rawText: string, now: Date): ParsedAutomation {
  const text = rawText.replace(/\s+/g, ' ').trim();
  if (text === '') throw notUnderstood(`is required: describe what to do and when, e.g. ${EXAMPLES}`);
  if (command === 'trigger') {
    return { kind: 'once', task: requireTask(taskOf(text), 'now'), runAt: now, schedule: 'once, now' };
  }
  const repetition = findRepetition(text);
  if (repetition === undefined) return oneOff(text, now);
  if ('needs' in repetition) throw notUnderstood(`understood ${repetition.understood} but it needs ${repetition.needs}`);
  return recurring(text, repetition, now);
}
