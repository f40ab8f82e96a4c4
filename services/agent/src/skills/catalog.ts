/**
 * The skills the agent knows, with the credential fields each takes. A
 * skill is configuration the agent record keeps (on or off, credentials
 * encrypted at rest); the machine that once connected the messengers is
 * retired, so nothing here opens a connection to Discord, Telegram or Slack.
 */
export interface SkillDefinition {
  name: string;
  description: string;
  /** Every field is required when credentials are set; no other field is accepted. */
  credentialFields: readonly string[];
}

export const SKILLS: readonly SkillDefinition[] = [
  {
    name: 'discord',
    description: 'Chat with the agent from a Discord bot (the chat-messenger skill).',
    credentialFields: ['discord_token', 'discord_app_id'],
  },
  {
    name: 'telegram',
    description: 'Chat with the agent from a Telegram bot.',
    credentialFields: ['telegram_bot_token'],
  },
  {
    name: 'slack',
    description: 'Chat with the agent from a Slack app.',
    credentialFields: ['slack_bot_token', 'slack_signing_secret'],
  },
];

export function skillNames(): string[] {
  return SKILLS.map((skill) => skill.name);
}

export function findSkill(name: string): SkillDefinition | undefined {
  return SKILLS.find((skill) => skill.name === name);
}
