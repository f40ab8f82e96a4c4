import { z } from 'zod';
import { agentEnums, enumBodyField } from './enums';
import { storableText } from '@gateway/lib/storable-text';

/**
 * The request bodies and queries of docs/api.md#agent-api, exactly as it names their
 * fields (note `session_id` in a chat, `sessionId` in session update and
 * delete). Unknown fields are refused. Types and the closed value sets are
 * checked here; limits that depend on the agent's own rules (lengths, the
 * skill catalog, the model catalog, images) are checked by the agent
 * service, whose messages name the same fields.
 */
const uuid = z.guid();
const nonEmpty = storableText().trim().min(1);

export const statusQuery = z.strictObject({
  include: z
    .string()
    .optional()
    .transform((value) => (value ?? '').split(',').map((section) => section.trim()).filter(Boolean))
    .pipe(z.array(enumBodyField(agentEnums.statusSection))),
});

export const chatBody = z.strictObject({
  message: nonEmpty,
  session_id: uuid.optional(),
  images: z.array(storableText()).optional(),
});

export const createSessionBody = z.strictObject({
  title: storableText(),
  category: enumBodyField(agentEnums.sessionCategory).optional(),
});

const SESSION_FIELDS = ['title', 'category', 'status', 'icon', 'pinned'] as const;

export const updateSessionBody = z
  .strictObject({
    sessionId: uuid,
    title: storableText().optional(),
    category: enumBodyField(agentEnums.sessionCategory).optional(),
    status: enumBodyField(agentEnums.sessionStatus).optional(),
    // null (or "") removes the icon.
    icon: storableText().nullable().optional(),
    pinned: z.boolean().optional(),
  })
  .refine((body) => SESSION_FIELDS.some((field) => body[field] !== undefined), {
    message: `must change at least one of: ${SESSION_FIELDS.join(', ')} (besides sessionId)`,
  });

export const deleteSessionBody = z.strictObject({ sessionId: uuid });

export const enableSkillBody = z.strictObject({ skill: nonEmpty, enabled: z.boolean() });

export const skillCredentialsBody = z.strictObject({ skill: nonEmpty, config: z.record(storableText(), storableText()) });

export const createMemoryBody = z.strictObject({
  key: storableText(),
  value: storableText(),
  category: enumBodyField(agentEnums.memoryCategory),
});

export const recommendBody = z.strictObject({ message: nonEmpty });

export const automateBody = z
  .strictObject({ command: enumBodyField(agentEnums.automateCommand), text: storableText().optional() })
  .refine((body) => body.command === agentEnums.automateCommand.valueOf('status') || (body.text ?? '').trim() !== '', {
    message: 'is required for every command but status: describe what to do and when',
    path: ['text'],
  });

const SETTINGS_FIELDS = ['aiModel', 'messengerType', 'serverTier', 'serverRegion', 'aiApiKey'] as const;

export const updateSettingsBody = z
  .strictObject({
    aiModel: nonEmpty.optional(),
    messengerType: enumBodyField(agentEnums.messengerType).optional(),
    serverTier: enumBodyField(agentEnums.serverTier).optional(),
    serverRegion: enumBodyField(agentEnums.serverRegion).optional(),
    aiApiKey: nonEmpty.optional(),
  })
  .refine((body) => SETTINGS_FIELDS.some((field) => body[field] !== undefined), {
    message: `must set at least one of: ${SETTINGS_FIELDS.join(', ')}`,
  });
