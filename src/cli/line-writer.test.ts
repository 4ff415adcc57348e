import { describe, expect, it } from 'vitest';
import { createLineWriter } from './line-writer.js';

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('createLineWriter', () => {
  it('writes the lines of one turn in one write, in order, and nothing when there are none', async () => {
    const writes: string[] = [];
    const log = createLineWriter({ write: (text) => writes.push(text) });
    log('GET /a 200 0.1ms');
    log('GET /b 404 0.2ms');
    expect(writes).toEqual([]);
    await turn();
    expect(writes).toEqual(['GET /a 200 0.1ms\nGET /b 404 0.2ms\n']);
    await turn();
    log('GET /c 200 0.1ms');
    await turn();
    expect(writes).toEqual(['GET /a 200 0.1ms\nGET /b 404 0.2ms\n', 'GET /c 200 0.1ms\n']);
  });

  it('flushes on demand, before a last message, and the scheduled flush then writes nothing twice', async () => {
    const writes: string[] = [];
    const log = createLineWriter({ write: (text) => writes.push(text) });
    log('one');
    log.flush();
    writes.push('SIGTERM: stopping\n');
    await turn();
    expect(writes).toEqual(['one\n', 'SIGTERM: stopping\n']);
  });
});
