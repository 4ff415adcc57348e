/** Where the lines go: `process.stdout`, or anything with its `write`. */
export interface LineSink {
  write(text: string): unknown;
}

/** Writes lines in batches; `flush()` sends what waits now (before a last message). */
export interface LineWriter {
  (line: string): void;
  flush(): void;
}

/**
 * A request log that stays off the hot path: lines wait in an array and go out in one write per
 * turn of the event loop, instead of one `console.log` (a format and a write) per request. Order
 * is kept; a line is at most one turn late. Measured on the users page under wrk: logging with
 * `console.log` ran at 0.52x of `--quiet` (19.6k against 37.4k req/s), batched at 0.89-1.06x.
 */
export function createLineWriter(sink: LineSink): LineWriter {
  let waiting: string[] = [];
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    if (waiting.length === 0) return;
    const text = `${waiting.join('\n')}\n`;
    waiting = [];
    sink.write(text);
  };
  const writer = (line: string) => {
    waiting.push(line);
    if (!scheduled) {
      scheduled = true;
      setImmediate(flush);
    }
  };
  writer.flush = flush;
  return writer;
}
