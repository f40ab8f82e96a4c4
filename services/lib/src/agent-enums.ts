import {
  AutomateCommand,
  MemoryCategory,
  MessengerType,
  ServerRegion,
  ServerTier,
  SessionCategory,
  SessionStatus,
  StatusSection,
} from '@gateway/proto/gen/gateway/agent/v1/agent';
import { protoEnumNames } from './proto-enum';

/**
 * The closed value sets of the agent API (docs/api.md#agent-api), as gateway.agent.v1
 * defines them, by the names HTTP clients and the agent's tables use. Edge
 * reads client input with them, the agent service its requests and rows.
 */
export type SessionCategoryName = 'general' | 'task' | 'research' | 'support' | 'automation' | 'creative' | 'debug';
export type SessionStatusName = 'active' | 'completed' | 'paused' | 'archived';
export type MemoryCategoryName = 'fact' | 'preference' | 'contact' | 'project' | 'note';
export type AutomateCommandName = 'automate' | 'schedule' | 'trigger' | 'remind' | 'status';
export type StatusSectionName = 'messages' | 'skills' | 'logs' | 'health';

export const agentEnums = {
  sessionCategory: protoEnumNames<SessionCategory, SessionCategoryName>(SessionCategory, 'SESSION_CATEGORY_'),
  sessionStatus: protoEnumNames<SessionStatus, SessionStatusName>(SessionStatus, 'SESSION_STATUS_'),
  memoryCategory: protoEnumNames<MemoryCategory, MemoryCategoryName>(MemoryCategory, 'MEMORY_CATEGORY_'),
  automateCommand: protoEnumNames<AutomateCommand, AutomateCommandName>(AutomateCommand, 'AUTOMATE_COMMAND_'),
  statusSection: protoEnumNames<StatusSection, StatusSectionName>(StatusSection, 'STATUS_SECTION_'),
  messengerType: protoEnumNames<MessengerType>(MessengerType, 'MESSENGER_TYPE_'),
  serverTier: protoEnumNames<ServerTier>(ServerTier, 'SERVER_TIER_'),
  serverRegion: protoEnumNames<ServerRegion>(ServerRegion, 'SERVER_REGION_'),
};
