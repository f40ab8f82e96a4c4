/** The parts of a chat message the score reads. */
export interface ScoredMessage {
  role: string;
  content: string;
}

/** How many of the most recent messages are counted (lengths and user turns). */
export const WINDOW_MESSAGES = 32;
/** How many leading system or developer messages make up the system prompt. */
export const MAX_LEADING_SYSTEM_MESSAGES = 4;
/** Characters of the last user message scanned for cues: its head and its tail. */
export const SCAN_HEAD_CHARS = 4096;
export const SCAN_TAIL_CHARS = 4096;

/** What the score needs from a conversation, read in bounded time whatever its size. */
export interface ConversationShape {
  /** Characters of the non-system messages in the window. */
  windowChars: number;
  /** User messages in the window. */
  userTurns: number;
  /** Characters of the system prompt (leading system / developer messages, and any in the window). */
  systemChars: number;
  /** The last user message in the window, cut to its head and tail: the only text scanned for cues. */
  scanText: string;
}

function isSystemRole(role: string): boolean {
  return role === 'system' || role === 'developer';
}

/**
 * Never reads more than MAX_LEADING_SYSTEM_MESSAGES + WINDOW_MESSAGES messages
 * and never copies more than SCAN_HEAD_CHARS + SCAN_TAIL_CHARS characters, so
 * a long history or a huge paste costs the same as a typical request.
 */
export function readConversation(messages: readonly ScoredMessage[]): ConversationShape {
  const count = messages.length;
  let systemChars = 0;
  let windowChars = 0;
  let userTurns = 0;
  let lastUser: ScoredMessage | undefined;

  let leading = 0;
  while (leading < count && leading < MAX_LEADING_SYSTEM_MESSAGES) {
    const message = messages[leading];
    if (!message || !isSystemRole(message.role)) break;
    systemChars += message.content.length;
    leading += 1;
  }
  for (let index = Math.max(leading, count - WINDOW_MESSAGES); index < count; index += 1) {
    const message = messages[index];
    if (!message) continue;
    if (isSystemRole(message.role)) {
      systemChars += message.content.length;
      continue;
    }
    windowChars += message.content.length;
    if (message.role === 'user') {
      userTurns += 1;
      lastUser = message;
    }
  }
  return { windowChars, userTurns, systemChars, scanText: lastUser ? boundedText(lastUser.content) : '' };
}

/** The text itself when short; else its head and tail joined by a line break. */
export function boundedText(text: string): string {
  if (text.length <= SCAN_HEAD_CHARS + SCAN_TAIL_CHARS) return text;
  return `${text.slice(0, SCAN_HEAD_CHARS)}\n${text.slice(text.length - SCAN_TAIL_CHARS)}`;
}
