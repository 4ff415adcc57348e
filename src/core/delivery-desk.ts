import type { ServiceEvent } from '../model/events.js';
import { type ChaosSettings, parseChaos } from '../webhooks/chaos.js';
import type { Delivery } from '../webhooks/delivery.js';
import { knownConnection } from './known-connection.js';
import type { SandboxParts } from './sandbox-parts.js';

/**
 * The delivery log and what acts on it (redelivery, retry now, delivery chaos), a connection's
 * checked first (a 404 for an unknown one). Always on the current parts: a reset or a restore swaps them.
 */
export class DeliveryDesk {
  constructor(private readonly parts: () => SandboxParts) {}

  emittedEvents(connectionId?: string): ServiceEvent[] {
    return this.deliveries(connectionId).map((delivery) => delivery.event);
  }

  deliveries(connectionId?: string): Delivery[] {
    const { registry, dispatcher } = this.parts();
    if (connectionId !== undefined) knownConnection(registry, connectionId);
    return dispatcher.list(connectionId);
  }

  redeliver(eventId: string): Promise<Delivery> {
    return this.parts().dispatcher.redeliver(eventId);
  }

  retryDeliveries(connectionId: string): Promise<Delivery[]> {
    const { registry, dispatcher } = this.parts();
    knownConnection(registry, connectionId);
    return dispatcher.retryNow(connectionId);
  }

  setChaos(connectionId: string, settings: ChaosSettings): ChaosSettings {
    const { registry, dispatcher } = this.parts();
    knownConnection(registry, connectionId);
    return dispatcher.setChaos(connectionId, parseChaos(settings));
  }

  chaos(connectionId: string): ChaosSettings {
    const { registry, dispatcher } = this.parts();
    knownConnection(registry, connectionId);
    return dispatcher.chaosOf(connectionId);
  }
}
