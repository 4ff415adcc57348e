import { describe, expect, it, vi } from 'vitest';
import { SandboxConfigError } from '../shared/errors.js';
import { RealClock, VirtualClock } from './clock.js';

const START = Date.parse('2025-01-01T00:00:00Z');
const fail = (error: unknown) => {
  throw error;
};

describe('VirtualClock', () => {
  it('runs due tasks in time order, then scheduling order, and stops at the target', async () => {
    const clock = new VirtualClock(START, fail);
    const ran: string[] = [];
    clock.setTimer(300, () => ran.push('c@300'));
    clock.setTimer(100, () => ran.push('a@100'));
    clock.setTimer(100, () => ran.push('b@100'));
    clock.setTimer(1_000, () => ran.push('late'));
    await clock.advance(500);
    expect(ran).toEqual(['a@100', 'b@100', 'c@300']);
    expect(clock.now()).toBe(START + 500);
  });

  it('sets the time of each task while it runs, and runs tasks that tasks schedule within the window', async () => {
    const clock = new VirtualClock(START, fail);
    const times: number[] = [];
    clock.setTimer(10, () => {
      times.push(clock.now() - START);
      clock.setTimer(10, () => times.push(clock.now() - START));
    });
    await clock.advance(25);
    expect(times).toEqual([10, 20]);
  });

  it('waits for async work a task starts before running the next one', async () => {
    const clock = new VirtualClock(START, fail);
    const log: string[] = [];
    clock.setTimer(1, async () => {
      await new Promise((resolve) => setTimeout(resolve, 20));
      log.push('slow done');
    });
    clock.setTimer(2, () => log.push('next'));
    await clock.advance(5);
    expect(log).toEqual(['slow done', 'next']);
  });

  it('never runs a cancelled timer; settle() runs what is due now only', async () => {
    const clock = new VirtualClock(START, fail);
    const ran: string[] = [];
    clock.setTimer(0, () => ran.push('now'));
    clock.setTimer(1, () => ran.push('later')).cancel();
    clock.setTimer(5, () => ran.push('future'));
    await clock.settle();
    expect(ran).toEqual(['now']);
    await clock.advance(10);
    expect(ran).toEqual(['now', 'future']);
  });

  it('reports task errors and goes on', async () => {
    const errors: unknown[] = [];
    const clock = new VirtualClock(START, (error) => errors.push(error));
    const ran: string[] = [];
    clock.setTimer(1, () => {
      throw new Error('boom');
    });
    clock.setTimer(2, () => ran.push('after'));
    await clock.advance(3);
    expect((errors[0] as Error).message).toBe('boom');
    expect(ran).toEqual(['after']);
  });
});

describe('RealClock', () => {
  it('refuses advance() and runs timers on wall-clock time', async () => {
    const clock = new RealClock(fail);
    await expect(clock.advance()).rejects.toThrow(SandboxConfigError);
    const fired = await new Promise<boolean>((resolve) => {
      clock.setTimer(5, () => resolve(true));
    });
    expect(fired).toBe(true);
    clock.close();
  });

  it('runs a task due already (a delay of 0 or less) right after the work at hand, before the next I/O, in order, without a warning', async () => {
    const clock = new RealClock(fail);
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    try {
      const ran: string[] = [];
      const io = new Promise<void>((resolve) => {
        // A timer of node's own, due at once: it runs in the loop's next timers phase, after the clock's due tasks.
        setTimeout(() => {
          ran.push('next turn');
          resolve();
        }, 0);
      });
      clock.setTimer(0, () => ran.push('due now'));
      clock.setTimer(-1, () => ran.push('due a millisecond ago'));
      clock.setTimer(0, () => ran.push('cancelled')).cancel();
      expect(ran).toEqual([]);
      await io;
      expect(ran).toEqual(['due now', 'due a millisecond ago', 'next turn']);
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings.map((warning) => warning.name)).not.toContain('TimeoutNegativeWarning');
    } finally {
      process.off('warning', onWarning);
      clock.close();
    }
  });

  it('where there is no setImmediate (a browser), runs a due task on a timer of 0, a negative delay too', async () => {
    vi.stubGlobal('setImmediate', undefined);
    const clock = new RealClock(fail);
    try {
      const ran: string[] = [];
      clock.setTimer(-1, () => ran.push('due a millisecond ago'));
      clock.setTimer(0, () => ran.push('due now'));
      await new Promise((resolve) => setTimeout(resolve, 5));
      expect(ran).toEqual(['due a millisecond ago', 'due now']);
    } finally {
      vi.unstubAllGlobals();
      clock.close();
    }
  });

  it('never runs a due task after close()', async () => {
    const clock = new RealClock(fail);
    const ran: string[] = [];
    clock.setTimer(0, () => ran.push('closed before it ran'));
    clock.close();
    clock.setTimer(0, () => ran.push('set after close'));
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(ran).toEqual([]);
  });
});
