import { type CrmObjectType, type CrmRecord, parseObjectType, type UnifiedRecord } from '../model/crm.js';
import { unifiedView } from '../unified/view.js';
import { knownConnection } from './known-connection.js';
import type { SandboxParts } from './sandbox-parts.js';

/**
 * A connection's CRM records as the control API and `sandbox.createRecord()` write and read them:
 * straight in the store (which reports each change to the event sink), answered as the service
 * answers them. Always on the current parts: a reset or a restore swaps them.
 */
export class RecordDesk {
  constructor(private readonly parts: () => SandboxParts) {}

  createRecord(connectionId: string, objectType: CrmObjectType, fields: Record<string, unknown> = {}): UnifiedRecord {
    const { data, view } = this.records(connectionId, objectType);
    return view(data.create(objectType, fields));
  }

  updateRecord(connectionId: string, objectType: CrmObjectType, id: string, fields: Record<string, unknown>): UnifiedRecord {
    const { data, view } = this.records(connectionId, objectType);
    return view(data.update(objectType, id, fields));
  }

  deleteRecord(connectionId: string, objectType: CrmObjectType, id: string): void {
    this.records(connectionId, objectType).data.delete(objectType, id);
  }

  getRecord(connectionId: string, objectType: CrmObjectType, id: string): UnifiedRecord {
    const { data, view } = this.records(connectionId, objectType);
    return view(data.get(objectType, id));
  }

  listRecords(connectionId: string, objectType: CrmObjectType): UnifiedRecord[] {
    const { data, view } = this.records(connectionId, objectType);
    return [...data.crm[objectType].values()].map(view);
  }

  private records(connectionId: string, objectType: string) {
    const type = parseObjectType(objectType);
    const { registry } = this.parts();
    const connection = knownConnection(registry, connectionId);
    const data = registry.dataOf(connection);
    return { data, view: (record: CrmRecord) => unifiedView(connection.integrationId, type, record) };
  }
}
