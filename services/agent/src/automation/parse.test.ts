import { DomainError } from '@gateway/lib/errors';
import { parseAutomation, type ParsedAutomation } from './parse';
import { nextCronRun } from './schedule';

/** A Tuesday, noon UTC. */
const NOW = new Date('2026-03-10T12:00:00Z');

function parsed(command: Parameters<typeof parseAutomation>[0], text: string): ParsedAutomation {
  return parseAutomation(command, text, NOW);
}

function refusal(command: Parameters<typeof parseAutomation>[0], text: string): string {
  try {
    parseAutomation(command, text, NOW);
  } catch (error) {
    if (error instanceof DomainError && error.kind === 'validation') return error.message;
    throw error;
  }
  throw new Error(`expected "${text}" to be refused`);
}

describe('parseAutomation: repetitions become cron schedules in UTC', () => {
  it.each([
    ['every weekday at 9am summarise my open sessions', '0 9 * * 1-5', 'every weekday at 09:00 UTC', 'summarise my open sessions', '2026-03-11T09:00:00.000Z'],
    ['every monday and thursday at 17:30 send the weekly report', '30 17 * * 1,4', 'every Monday and Thursday at 17:30 UTC', 'send the weekly report', '2026-03-12T17:30:00.000Z'],
    ['every day at noon, drink water', '0 12 * * *', 'every day at 12:00 UTC', 'drink water', '2026-03-11T12:00:00.000Z'],
    ['every morning check the build', '0 9 * * *', 'every morning at 09:00 UTC', 'check the build', '2026-03-11T09:00:00.000Z'],
    ['every 15 minutes check the queue', '*/15 * * * *', 'every 15 minutes', 'check the queue', '2026-03-10T12:15:00.000Z'],
    ['every 6 hours rotate the logs', '0 */6 * * *', 'every 6 hours, on the hour', 'rotate the logs', '2026-03-10T18:00:00.000Z'],
    ['monthly on the 1st at 8am pay the invoices', '0 8 1 * *', 'on day 1 of every month at 08:00 UTC', 'pay the invoices', '2026-04-01T08:00:00.000Z'],
    ['on weekends at 10am plan the week', '0 10 * * 0,6', 'every weekend day at 10:00 UTC', 'plan the week', '2026-03-14T10:00:00.000Z'],
  ])('%s', (text, cron, schedule, task, next) => {
    expect(parsed('schedule', text)).toEqual({ kind: 'recurring', cron, schedule, task, nextRunAt: new Date(next) });
  });

  it('steps a schedule with cron-parser, strictly after the given time', () => {
    expect(nextCronRun('0 9 * * 1-5', new Date('2026-03-13T09:00:00Z')).toISOString()).toBe('2026-03-16T09:00:00.000Z');
  });
});

describe('parseAutomation: one-off times', () => {
  it('reads "in 2 hours" and keeps what to do', () => {
    expect(parsed('remind', 'remind me in 2 hours to call Sam')).toEqual({
      kind: 'once',
      task: 'call Sam',
      runAt: new Date('2026-03-10T14:00:00Z'),
      schedule: 'once, at 2026-03-10T14:00:00.000Z',
    });
  });

  it('reads a day and a time', () => {
    expect(parsed('automate', 'tomorrow at 17:30 send the report')).toMatchObject({ kind: 'once', task: 'send the report', runAt: new Date('2026-03-11T17:30:00Z') });
  });

  it('trigger runs its task once, now', () => {
    expect(parsed('trigger', 'summarise my open sessions')).toEqual({ kind: 'once', task: 'summarise my open sessions', runAt: NOW, schedule: 'once, now' });
  });
});

describe('parseAutomation: what it cannot understand is a 400 saying what it understood and what it needs', () => {
  it.each([
    ['remind', 'call Sam', 'understood the task "call Sam" but not when it should run'],
    ['schedule', 'every weekday summarise my sessions', 'understood a repetition ("every weekday") but it needs a time of day for "every weekday"'],
    ['schedule', 'weekly send the report', 'understood every week but it needs the day of the week'],
    ['schedule', 'every blue moon howl', 'understood a repetition ("every blue moon howl") but it needs how often'],
    ['schedule', 'every 90 minutes stretch', 'understood every 90 minutes but it needs a number of minutes from 1 to 59'],
    ['remind', 'in 2 hours', 'understood when ("in 2 hours") but not what to do'],
    ['automate', '   ', 'is required: describe what to do and when'],
  ] as const)('%s "%s"', (command, text, message) => {
    expect(refusal(command, text)).toContain(`text: ${message}`);
  });
});
