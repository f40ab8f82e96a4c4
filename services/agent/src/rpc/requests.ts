import { z } from 'zod';
import { SESSION_ICON_MAX, SESSION_TITLE_MAX } from '../db/tables/sessions';
import { AUTOMATION_TEXT_MAX } from '../automation/parse';
import { memoryFields } from '../memory/memories';
import { actorSchema } from './actor';
import { agentEnums, enumField, optionalEnumField } from './enums';
import { storableText } from '@gateway/lib/storable-text';

/**
 * Every request of gateway.agent.v1, checked at the service's boundary.
 * Problems name fields as docs/api.md#agent-api does (`sessionId`, `aiModel`; `session_id`
 * in a chat), since the agent API is where they come from.
 */

/** A chat message, or the message a routing recommendation is asked for. */
export const MESSAGE_MAX = 8000;
const API_KEY_MAX = 1024;

const withActor = <Shape extends z.ZodRawShape>(shape: Shape) => z.object({ actor: actorSchema, ...shape });
const uuid = (what: string) => z.guid({ error: `must be ${what} id (a UUID)` });
const text = (max: number) => storableText().trim().min(1, 'must not be empty').max(max, `must be at most ${max} characters`);
const title = text(SESSION_TITLE_MAX);
const icon = storableText().trim().max(SESSION_ICON_MAX, `must be at most ${SESSION_ICON_MAX} characters`);

export const actorOnly = withActor({});

export const statusRequest = withActor({ include: z.array(enumField(agentEnums.statusSection)) });

export const chatRequest = withActor({
  message: text(MESSAGE_MAX),
  sessionId: z.union([z.literal('').transform(() => null), uuid('a session')]),
  images: z.array(storableText()),
});

export const createSessionRequest = withActor({
  title,
  category: optionalEnumField(agentEnums.sessionCategory).transform((category) => category ?? 'general'),
});

export const updateSessionRequest = withActor({
  sessionId: uuid('a session'),
  title: title.optional(),
  category: optionalEnumField(agentEnums.sessionCategory),
  status: optionalEnumField(agentEnums.sessionStatus),
  // Empty removes the icon.
  icon: icon.transform((value) => (value === '' ? null : value)).optional(),
  pinned: z.boolean().optional(),
}).refine(
  ({ title: newTitle, category, status, icon: newIcon, pinned }) => [newTitle, category, status, newIcon, pinned].some((value) => value !== undefined),
  { error: 'give at least one of title, category, status, icon, pinned besides sessionId' },
);

export const sessionIdRequest = withActor({ sessionId: uuid('a session') });

export const skillEnabledRequest = withActor({ skill: storableText(), enabled: z.boolean() });
export const skillCredentialsRequest = withActor({ skill: storableText(), config: z.record(storableText(), storableText()) });

export const createMemoryRequest = withActor({ ...memoryFields, category: enumField(agentEnums.memoryCategory) });

export const recommendRequest = withActor({ message: text(MESSAGE_MAX) });

export const automateRequest = withActor({
  command: enumField(agentEnums.automateCommand),
  text: storableText().max(AUTOMATION_TEXT_MAX, `must be at most ${AUTOMATION_TEXT_MAX} characters`),
});

export const updateSettingsRequest = withActor({
  aiModel: storableText().trim().min(1, 'must not be empty').max(200, 'must be at most 200 characters').optional(),
  messengerType: optionalEnumField(agentEnums.messengerType),
  serverTier: optionalEnumField(agentEnums.serverTier),
  serverRegion: optionalEnumField(agentEnums.serverRegion),
  aiApiKey: z
    .string()
    .min(1, 'must not be empty')
    .max(API_KEY_MAX, `must be at most ${API_KEY_MAX} characters`)
    .regex(/^\S+$/, 'must be the key alone, without spaces')
    .optional(),
}).refine((input) => [input.aiModel, input.messengerType, input.serverTier, input.serverRegion, input.aiApiKey].some((value) => value !== undefined), {
  error: 'give at least one of aiModel, messengerType, serverTier, serverRegion, aiApiKey',
});
