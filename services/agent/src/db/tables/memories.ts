import type { ColumnType, Generated, Selectable } from 'kysely';

export const memoryCategories = ['fact', 'preference', 'contact', 'project', 'note'] as const;
export type MemoryCategoryName = (typeof memoryCategories)[number];

export const MEMORY_KEY_MAX = 100;
export const MEMORY_VALUE_MAX = 2000;

/** A memory entry (docs/api.md#gateway): one value per key and agent record. */
export interface MemoriesTable {
  id: Generated<string>;
  agent_id: string;
  key: string;
  value: string;
  category: MemoryCategoryName;
  created_at: ColumnType<Date, never, never>;
  updated_at: ColumnType<Date, Date | undefined, Date>;
}
export type MemoryRow = Selectable<MemoriesTable>;
