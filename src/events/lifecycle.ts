import type { Clock } from '../clock/clock.js';
import type { ConnectionState } from '../core/connections.js';
import type { ConnectionStatus } from '../model/connection.js';

export interface LifecycleDelays {
  /** From the exchange to INITIAL_SYNCED. */
  initialSyncMs: number;
  /** From the exchange to READY. */
  readyMs: number;
}

/**
 * Moves connections NEW_CONNECTION → INITIAL_SYNCED → READY on the sandbox clock, and reports
 * each move (a STATUS_CHANGE event). A forced move stops the automatic ones for that connection.
 */
export class Lifecycle {
  private readonly clock: Clock;
  private readonly delays: LifecycleDelays;
  private readonly onStatus: (connection: ConnectionState, status: ConnectionStatus) => void;

  constructor(clock: Clock, delays: LifecycleDelays, onStatus: (connection: ConnectionState, status: ConnectionStatus) => void) {
    this.clock = clock;
    this.delays = delays;
    this.onStatus = onStatus;
  }

  /** A new connection: report NEW_CONNECTION now and schedule the rest. */
  start(connection: ConnectionState): void {
    this.onStatus(connection, 'NEW_CONNECTION');
    connection.lifecycle = [
      this.clock.setTimer(this.delays.initialSyncMs, () => this.move(connection, 'INITIAL_SYNCED')),
      this.clock.setTimer(this.delays.readyMs, () => this.move(connection, 'READY')),
    ];
  }

  /** Sets a status by hand (the control API): always reported, and the automatic moves stop. */
  force(connection: ConnectionState, status: ConnectionStatus): void {
    this.stop(connection);
    this.move(connection, status);
  }

  stop(connection: ConnectionState): void {
    for (const timer of connection.lifecycle) timer.cancel();
    connection.lifecycle = [];
  }

  private move(connection: ConnectionState, status: ConnectionStatus): void {
    connection.status = status;
    this.onStatus(connection, status);
  }
}
