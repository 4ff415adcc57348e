/**
 * Runs `work`, counting the turns of the event loop (setImmediate) it gave others meanwhile: 0 for
 * work done in one piece (or in promise callbacks only), more for work that gives turns between pieces.
 *
 * @example const { result, turns } = await turnsDuring(() => sandbox.handle(request));
 */
export async function turnsDuring<T>(work: () => Promise<T>): Promise<{ result: T; turns: number }> {
  let turns = 0;
  let going = true;
  const tick = () => {
    if (!going) return;
    turns++;
    setImmediate(tick);
  };
  setImmediate(tick);
  const result = await work();
  going = false;
  return { result, turns };
}
