import * as z from 'zod';
import type { Clock, Timer } from '../clock/clock.js';
import { type ConnectionStatus, connectionStatusSchema } from '../model/connection.js';
import { once } from '../shared/once.js';
import { timeMsSchema } from '../shared/state-schemas.js';

/** What the lifecycle needs of a connection (the core's ConnectionState has it). */
export interface LifecycleSubject {
  readonly connectionId: string;
  status: ConnectionStatus;
  /** Pending automatic status moves. */
  lifecycle: Timer[];
}

export interface LifecycleDelays {
  /** From the exchange to INITIAL_SYNCED. */
  initialSyncMs: number;
  /** From the exchange to READY. */
  readyMs: number;
}

/** An automatic status move still to come, and when (ms): a connection's lifecycle state, as a snapshot keeps it. */
export const pendingMoveSchema = once(() => z.object({ status: connectionStatusSchema(), at: timeMsSchema() }).strict());
export type PendingMove = z.infer<ReturnType<typeof pendingMoveSchema>>;

/**
 * Moves connections NEW_CONNECTION → INITIAL_SYNCED → READY on the sandbox clock, and reports
 * each move (a STATUS_CHANGE event). A forced move stops the automatic ones for that connection.
 */
export class Lifecycle {
  private readonly clock: Clock;
  private readonly delays: LifecycleDelays;
  private readonly onStatus: (connection: LifecycleSubject, status: ConnectionStatus) => void;
  /** The moves each connection still has to come, for snapshots. */
  private readonly due = new WeakMap<LifecycleSubject, PendingMove[]>();

  constructor(clock: Clock, delays: LifecycleDelays, onStatus: (connection: LifecycleSubject, status: ConnectionStatus) => void) {
    this.clock = clock;
    this.delays = delays;
    this.onStatus = onStatus;
  }

  /** A new connection: report NEW_CONNECTION now and schedule the rest. */
  start(connection: LifecycleSubject): void {
    this.onStatus(connection, 'NEW_CONNECTION');
    const now = this.clock.now();
    this.importState(connection, [
      { status: 'INITIAL_SYNCED', at: now + this.delays.initialSyncMs },
      { status: 'READY', at: now + this.delays.readyMs },
    ]);
  }

  /** The automatic moves a connection still has to come, for a snapshot. */
  exportState(connection: LifecycleSubject): PendingMove[] {
    return [...(this.due.get(connection) ?? [])];
  }

  /** Schedules moves: a new connection's, or those a restored one still had to come. */
  importState(connection: LifecycleSubject, moves: readonly PendingMove[]): void {
    const due = [...moves];
    this.due.set(connection, due);
    connection.lifecycle = moves.map((move) =>
      this.clock.setTimer(move.at - this.clock.now(), () => {
        due.splice(due.indexOf(move), 1);
        this.move(connection, move.status);
      }),
    );
  }

  /** Sets a status by hand (the control API): always reported, and the automatic moves stop. */
  force(connection: LifecycleSubject, status: ConnectionStatus): void {
    this.stop(connection);
    this.move(connection, status);
  }

  stop(connection: LifecycleSubject): void {
    for (const timer of connection.lifecycle) timer.cancel();
    connection.lifecycle = [];
    this.due.delete(connection);
  }

  private move(connection: LifecycleSubject, status: ConnectionStatus): void {
    connection.status = status;
    this.onStatus(connection, status);
  }
}
